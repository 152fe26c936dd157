# petscgilu: a PETSc plugin library (preconditioners, matrix type, triangular solvers; host + CUDA)
#
#   make [all]                      configure if needed, build lib/libpetscgilu.so, with CUDA lib/libpetscgilu_cuda.so
#                                   (and build/lib/libpetscgilutest.so)
#   make check [s=PATTERN] ...      build, run tests/ and tutorials/ with PETSc's harness (+ tests/petsc-examples/run)
#   make run [NP=n] [THREADS=t]     build lib/libpetscgilu.so (no nvcc) and tutorials/ex1, structilu vs PETSc's ILU at 64^3
#   make install [PREFIX=/usr/local] [DESTDIR=]
#   make help                       everything else
#
# Configuration lives in build/ (config/configure writes it; it is re-run when missing, when config/configure
# changes, or when PETSC_DIR, PETSC_ARCH, PETSCGILU_WITH_CUDA or PETSCGILU_WITH_OPENMP are given with new values).
SHELL         := /bin/bash
.DEFAULT_GOAL := all
.SUFFIXES:

PETSCGILU_DIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
PG_SRCDIR     := $(PETSCGILU_DIR)/src
PG_BUILDDIR   := $(PETSCGILU_DIR)/build
PG_OBJDIR     := $(PG_BUILDDIR)/obj
PG_CONFVARS   := $(PG_BUILDDIR)/lib/petscgilu/conf/petscgiluvariables
PG_CONFH      := $(PG_BUILDDIR)/include/petscgiluconf.h
PG_LIBNAME    := libpetscgilu.so
PG_LIB        := $(PETSCGILU_DIR)/lib/$(PG_LIBNAME)
# the soname carries MAJOR.MINOR of include/petscgiluversion.h (as PETSc's libpetsc.so.3.18): lib/libpetscgilu.so is a link to it
PG_VERSION_MM := $(shell awk '$$2 == "PETSCGILU_VERSION_MAJOR" { a = $$3 } $$2 == "PETSCGILU_VERSION_MINOR" { b = $$3 } END { print a "." b }' $(PETSCGILU_DIR)/include/petscgiluversion.h)
PG_SONAME     := $(PG_LIBNAME).$(PG_VERSION_MM)
PG_TESTDIR    := $(PG_BUILDDIR)/tests
# the nvcc objects: a library of their own, which libpetscgilu.so opens (dlopen) the first time the cuda back-end is
# considered (src/sys/backend.c, GILU_CUDA_LIBRARY): libpetscgilu.so builds without nvcc and loads without libcudart
PG_CUDA_LIBNAME := libpetscgilu_cuda.so
PG_CUDA_SONAME  := $(PG_CUDA_LIBNAME).$(PG_VERSION_MM)
PG_CUDA_LIB     := $(PETSCGILU_DIR)/lib/$(PG_CUDA_LIBNAME)
# the test library (src/test/, include/petscgilutest.h): test matrices, the emulation's self-tests, the cuSPARSE
# baselines; linked by the programs of tests/ (gmakefile.test), never installed, never loaded by -dll_append
PG_TESTLIB    := $(PG_BUILDDIR)/lib/libpetscgilutest.so
PREFIX        ?= /usr/local
CHECK_JOBS    ?= 2

# goals that must not configure (or install packages) on a fresh clone
PG_NOCONF_GOALS := clean distclean help gpu-validate check-petsc-cuda check-clang check-tsan check-compile check-compile-64 gpu-perf format check-format
PG_NEED_CONF    := $(if $(MAKECMDGOALS),$(filter-out $(PG_NOCONF_GOALS),$(MAKECMDGOALS)),all)

# ------------------------------------------------------------------------------------------------ configure
# What the user asks configure for (environment or command line); remembered in the variables file
PG_CONF_REQ_VARS := PETSC_DIR PETSC_ARCH PETSCGILU_WITH_CUDA PETSCGILU_WITH_OPENMP
define pg_snapshot
PG_USER_SET_$1 := $(if $(filter environment command line,$(origin $1)),1)
PG_USER_$1     := $$($1)
endef
$(foreach v,$(PG_CONF_REQ_VARS),$(eval $(call pg_snapshot,$v)))

ifneq ($(PG_NEED_CONF),)
-include $(PG_CONFVARS)
endif
PETSC_DIR  ?= /usr/lib/petsc
PETSC_ARCH ?=

# re-run configure when a variable is given with a value other than the one it was configured with
pg_differs   = $(if $(filter-out x$(subst $(PG_SPACE),?,$1),x$(subst $(PG_SPACE),?,$2)),1)
PG_EMPTY     :=
PG_SPACE     := $(PG_EMPTY) $(PG_EMPTY)
PG_CONF_STALE := $(strip $(foreach v,$(PG_CONF_REQ_VARS),$(if $(PG_USER_SET_$v),$(call pg_differs,$(PG_USER_$v),$(PETSCGILU_REQ_$v)),)))
# the values configure runs with: given now, else the remembered ones (sticky like config.status)
PG_CONFIGURE_ENV := $(foreach v,$(PG_CONF_REQ_VARS),$v='$(if $(PG_USER_SET_$v),$(PG_USER_$v),$(PETSCGILU_REQ_$v))')

$(PG_CONFVARS): $(PETSCGILU_DIR)/config/configure $(PETSCGILU_DIR)/config/install-deps $(if $(or $(PG_CONF_STALE),$(if $(wildcard $(PG_CONFH)),,1)),FORCE)
	@$(PG_CONFIGURE_ENV) $(PETSCGILU_DIR)/config/install-deps
	@$(PG_CONFIGURE_ENV) $(PETSCGILU_DIR)/config/configure

ifneq ($(PG_NEED_CONF),)
# PETSc's make variables (PCC, PCC_FLAGS, CCPPFLAGS, PETSC_LIB, CXX_LINKER, MPIEXEC ...)
# PETSc's conf/variables (it includes $(PETSC_DIR)/$(PETSC_ARCH)/lib/petsc/conf/petscvariables): in the top directory
# of a source tree as of a prefix install (there PETSC_ARCH is empty)
-include $(PETSC_DIR)/lib/petsc/conf/variables
endif

# ------------------------------------------------------------------------------------------------ sources
pg_rwildcard = $(foreach d,$(wildcard $(1:=/*)),$(call pg_rwildcard,$d,$2) $(filter $(subst *,%,$2),$d))
# src/test/ is the test library's, every other source under src/ the library's (PETSc leaves its tests/ folders out
# of its libraries the same way); both build with the same rules into build/obj/
PG_ALL_C_SRCS  := $(sort $(call pg_rwildcard,$(PG_SRCDIR),*.c))
PG_ALL_CU_SRCS := $(sort $(call pg_rwildcard,$(PG_SRCDIR),*.cu))
pg_objs = $(patsubst $(PG_SRCDIR)/%.c,$(PG_OBJDIR)/%.o,$1) \
          $(if $(filter 1,$(PETSCGILU_HAVE_CUDAEMU)),$(patsubst $(PG_SRCDIR)/%.cu,$(PG_OBJDIR)/%.cudaemu.o,$2))
pg_cuobjs = $(if $(filter 1,$(PETSCGILU_HAVE_CUDA)),$(patsubst $(PG_SRCDIR)/%.cu,$(PG_OBJDIR)/%.cu.o,$1))
# each .cu is also compiled by the host C++ compiler for the CUDA emulation (cudaemu), with or without CUDA: those
# objects are libpetscgilu.so's; the nvcc ones are lib/libpetscgilu_cuda.so's (the test library holds both of its own)
PG_LIB_C_SRCS  := $(filter-out $(PG_SRCDIR)/test/%,$(PG_ALL_C_SRCS))
PG_LIB_CU_SRCS := $(filter-out $(PG_SRCDIR)/test/%,$(PG_ALL_CU_SRCS))
PG_OBJS      := $(call pg_objs,$(PG_LIB_C_SRCS),$(PG_LIB_CU_SRCS))
PG_CUDA_OBJS := $(call pg_cuobjs,$(PG_LIB_CU_SRCS))
PG_TEST_OBJS := $(call pg_objs,$(filter $(PG_SRCDIR)/test/%,$(PG_ALL_C_SRCS)),$(filter $(PG_SRCDIR)/test/%,$(PG_ALL_CU_SRCS))) \
                $(call pg_cuobjs,$(filter $(PG_SRCDIR)/test/%,$(PG_ALL_CU_SRCS)))
# the CUDA library when the build has CUDA (empty otherwise)
PG_CUDA_LIB_IF := $(if $(PG_CUDA_OBJS),$(PG_CUDA_LIB))

PG_INCLUDES := -I$(PETSCGILU_DIR)/include -I$(PG_BUILDDIR)/include
PG_CWARN    := -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare $(if $(filter 1,$(WERROR)),-Werror)
PG_NVCC_FLAGS := -O3 -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
                 $(if $(filter 1,$(WERROR)),-Werror all-warnings) $(NVCCFLAGS)
# MPI include flags for nvcc (PETSc's headers include mpi.h); computed once, when first needed
# the emulated objects: C++ as nvcc's host side would see it, kernels run by src/sys/cudaemu (see gilucuda.h)
# (not PETSc's -fvisibility=hidden, which a PETSc source build has: objcopy keeps only the *_cudaemu names global,
# and hidden template instantiations in COMDAT groups would then be discarded at the link)
PG_EMU_FLAGS  := -x c++ -std=c++14 -DGILU_CUDAEMU $(filter-out -std=% -fvisibility=%,$(CXX_FLAGS)) $(PG_CWARN)
PG_MPI_INCLUDES = $(eval PG_MPI_INCLUDES := $$(or $$(shell $(PCC) --showme:compile 2>/dev/null),$$(filter -I%,$$(shell $(PCC) -show 2>/dev/null))))$(PG_MPI_INCLUDES)
PG_COMMA     := ,
# libcudart: only lib/libpetscgilu_cuda.so and the test library link it
PG_CUDA_LIBS := $(if $(filter 1,$(PETSCGILU_HAVE_CUDA)),$(CUDA_LDFLAGS) -lcudart)
# nvcc runs ptxas, fatbinary and nvlink from PATH: those of its own release first (config/configure found them)
PG_NVCC_RUN  = $(if $(NVCC_TOOLDIR),PATH='$(NVCC_TOOLDIR)':"$$PATH" )$(NVCC)
# cuSPARSE: only the test library's baselines call it; its nvcc objects use the device layer of the CUDA library
PG_TEST_CUDA_LIBS := $(if $(filter 1,$(PETSCGILU_HAVE_CUDA)),-lpetscgilu_cuda $(PG_CUDA_LIBS) -lcusparse)

# quiet by default, V=1 shows the commands
PG_Q    := $(if $(filter 1,$(V)),,@)
pg_say   = $(if $(filter 1,$(V)),,@printf '  %-6s %s\n' '$1' '$(patsubst $(PETSCGILU_DIR)/%,%,$2)')

# relink when the set of objects changes (a source removed or renamed), not only when one is newer
# (tests/mutations/run reads both lists: every object but the mutated one is taken as up to date)
PG_OBJLIST := $(PG_OBJDIR)/objects.list
PG_CUDA_OBJLIST := $(PG_OBJDIR)/cuda-objects.list
PG_TEST_OBJLIST := $(PG_OBJDIR)/test-objects.list
ifneq ($(PG_NEED_CONF),)
ifneq ($(wildcard $(PG_CONFVARS)),)
$(shell mkdir -p $(PG_OBJDIR) && { echo '$(PG_OBJS)' | cmp -s - $(PG_OBJLIST) || echo '$(PG_OBJS)' > $(PG_OBJLIST); } && \
  { echo '$(PG_CUDA_OBJS)' | cmp -s - $(PG_CUDA_OBJLIST) || echo '$(PG_CUDA_OBJS)' > $(PG_CUDA_OBJLIST); } && \
  { echo '$(PG_TEST_OBJS)' | cmp -s - $(PG_TEST_OBJLIST) || echo '$(PG_TEST_OBJS)' > $(PG_TEST_OBJLIST); })
endif
endif

# ------------------------------------------------------------------------------------------------ build
# without -j on the command line the build runs as many jobs as there are cores (a first build is mostly nvcc and the
# -O3 kernels: 161 s on one job, 87 s on two, 2026-11-27); a -j given, or a job server above, is left as it is
# (make 4.3 shows -j in MAKEFLAGS to recipes only, not while it reads the makefile: the recipe decides)
PG_JOBS     ?= $(shell nproc 2> /dev/null || echo 2)
PG_PARALLEL  = case " $$MAKEFLAGS " in *" -j"* | *jobserver*) j= ;; *) j=-j$(PG_JOBS) ;; esac
all:
	+@$(PG_PARALLEL); $(MAKE) --no-print-directory $$j pg-build
pg-build: $(PG_LIB) $(PG_CUDA_LIB_IF) $(PG_TESTLIB)
pg-lib:
	+@$(PG_PARALLEL); $(MAKE) --no-print-directory $$j $(PG_LIB)

# the host kernels (sweeps, factorizations, the pack of the values) at -O3 when PETSc's flags optimize (-O2): the
# fixed-size block loops unroll and vectorize (snes ex19's setup ~15% faster); the same values (no reassociation)
PG_KERNEL_OBJS := $(addprefix $(PG_OBJDIR)/,mat/stencil/ilu.o mat/stencil/extract.o mat/stencilgpu/stencilgpu-ops.o \
                    mat/sptrsv/sptrsv-host.o mat/sptrsv/sptrsv-plan.o mat/sptrsv/gilufactor.o \
                    mat/sptrsv/gilufactor-numeric.o pc/fgdd/fgdd-apply.o)
$(PG_KERNEL_OBJS): PG_KERNEL_OPT = $(if $(filter -O2,$(PCC_FLAGS)),-O3)

$(PG_OBJDIR)/%.o: $(PG_SRCDIR)/%.c $(PG_CONFVARS)
	@mkdir -p $(@D)
	$(call pg_say,CC,$<)
	$(PG_Q)$(PCC) -c $(PCC_FLAGS) $(PG_KERNEL_OPT) $(CCPPFLAGS) $(OPENMP_FLAG) $(PG_INCLUDES) $(PG_CWARN) $(CFLAGS) -MMD -MP -MF $(@:.o=.d) -MT $@ $< -o $@

$(PG_OBJDIR)/%.cu.o: $(PG_SRCDIR)/%.cu $(PG_CONFVARS)
	@mkdir -p $(@D)
	$(call pg_say,NVCC,$<)
	$(PG_Q)$(PG_NVCC_RUN) -c $(PG_NVCC_FLAGS) $(PETSC_CC_INCLUDES) $(PG_MPI_INCLUDES) $(PG_INCLUDES) -MMD -MP -MF $(@:.o=.d) -MT $@ $< -o $@

# GILU_CUDA_NAME(f) gives the emulated object's external names the suffix _cudaemu; everything else defined there
# (kernels, device functions) is made local, so it cannot clash with nvcc's objects or another .cu's. A definition of
# vague linkage (an inline function or template of external linkage, emitted in a COMDAT group of every object that
# does not inline it) cannot be made local: the link keeps one object's group and fails on the others' references,
# so it is refused here (C++ flags without -O, as a PETSc --with-debugging has, inline nothing: they show them all)
PG_EMU_LOCALIZE = v=$$(nm -C $@ | awk '$$2 ~ /^[VWu]$$/ { $$1 = $$2 = ""; sub(/^ +/, ""); print }' | sort -u | paste -sd';'); \
  [ -z "$$v" ] || { rm -f $@; echo "$<: defined with vague linkage in the emulated object (make it static, or put a type in an unnamed namespace): $$v" >&2; exit 1; }; \
  objcopy --wildcard --keep-global-symbol='*_cudaemu' $@
$(PG_OBJDIR)/%.cudaemu.o: $(PG_SRCDIR)/%.cu $(PG_CONFVARS)
	@mkdir -p $(@D)
	$(call pg_say,CXXEMU,$<)
	$(PG_Q)$(CUDAEMU_CXX) -c $(PG_EMU_FLAGS) $(CXXCPPFLAGS) $(PG_INCLUDES) $(CXXFLAGS) -MMD -MP -MF $(@:.o=.d) -MT $@ $< -o $@
	$(PG_Q)$(PG_EMU_LOCALIZE)

# the C++ driver: the emulated objects need libstdc++ (__gxx_personality_v0, __cxa_guard_*)
$(PG_LIB): $(PG_OBJS) $(PG_OBJLIST) $(PG_CONFVARS)
	@mkdir -p $(@D)
	$(if $(PG_OBJS),,@echo "warning: no sources under src/: building an empty $(PG_LIBNAME)" >&2)
	$(call pg_say,LINK,$@)
	$(PG_Q)$(CXX_LINKER) -shared $(PCC_LINKER_FLAGS) -o $(@D)/$(PG_SONAME) $(PG_OBJS) -Wl,-soname,$(PG_SONAME) -Wl,--no-undefined \
	  $(OPENMP_FLAG) $(PETSC_LIB) $(LDFLAGS)
	$(PG_Q)ln -sf $(PG_SONAME) $@

# the nvcc objects and libcudart; they call libpetscgilu.so (found beside it: $$ORIGIN) for what the host plans
$(PG_CUDA_LIB): $(PG_CUDA_OBJS) $(PG_CUDA_OBJLIST) | $(PG_LIB)
	@mkdir -p $(@D)
	$(call pg_say,LINK,$@)
	$(PG_Q)$(CXX_LINKER) -shared $(PCC_LINKER_FLAGS) -o $(@D)/$(PG_CUDA_SONAME) $(PG_CUDA_OBJS) -Wl,-soname,$(PG_CUDA_SONAME) -Wl,--no-undefined \
	  -Wl,-rpath,'$$ORIGIN' -L$(@D) -lpetscgilu $(PG_CUDA_LIBS) $(PETSC_LIB) $(LDFLAGS)
	$(PG_Q)ln -sf $(PG_CUDA_SONAME) $@

# the test library links the library: its emulated kernels run on the library's emulation runtime, its cuSPARSE
# baselines allocate and copy through the library's device layer (both exported at developer level)
$(PG_TESTLIB): $(PG_TEST_OBJS) $(PG_TEST_OBJLIST) $(PG_LIB) $(PG_CUDA_LIB_IF)
	@mkdir -p $(@D)
	$(call pg_say,LINK,$@)
	$(PG_Q)$(CXX_LINKER) -shared $(PCC_LINKER_FLAGS) -o $@ $(PG_TEST_OBJS) -Wl,-soname,$(@F) -Wl,--no-undefined \
	  -Wl,-rpath,$(PETSCGILU_DIR)/lib -L$(PETSCGILU_DIR)/lib -lpetscgilu $(OPENMP_FLAG) $(PG_TEST_CUDA_LIBS) $(PETSC_LIB) $(LDFLAGS)

# make check's emu-link: tests/emu-link.cu compiled twice for the emulation at -O0 (a debug PETSc's CXX_FLAGS: -O2
# inlines what -O0 emits out of line, so the default build would not show it), localized as the library's objects
# are, and linked into one library: what gilucuda.h defines for a launch links however the compiler emits it
PG_EMU_LINK_DIR := $(PG_TESTDIR)/emu-link
PG_EMU_LINK     := $(PG_EMU_LINK_DIR)/libemulink.so
$(PG_EMU_LINK_DIR)/%.cudaemu.o: $(PETSCGILU_DIR)/tests/emu-link.cu $(PG_CONFVARS)
	@mkdir -p $(@D)
	$(call pg_say,CXXEMU,$< ($*))
	$(PG_Q)$(CUDAEMU_CXX) -c $(PG_EMU_FLAGS) $(CXXCPPFLAGS) $(PG_INCLUDES) $(CXXFLAGS) -O0 -DEMU_LINK_NAME=EmuLink_$*_cudaemu $< -o $@
	$(PG_Q)$(PG_EMU_LOCALIZE)
$(PG_EMU_LINK): $(PG_EMU_LINK_DIR)/a.cudaemu.o $(PG_EMU_LINK_DIR)/b.cudaemu.o $(PG_LIB)
	$(call pg_say,LINK,$@)
	$(PG_Q)$(CXX_LINKER) -shared $(PCC_LINKER_FLAGS) -o $@ $(filter %.o,$^) -Wl,--no-undefined \
	  -L$(PETSCGILU_DIR)/lib -lpetscgilu $(PETSC_LIB) $(LDFLAGS)

-include $(PG_OBJS:.o=.d) $(PG_CUDA_OBJS:.o=.d) $(PG_TEST_OBJS:.o=.d)

# compile only, link nothing: every object of both libraries (the emulated kernels included) and every program of
# tests/ and tutorials/ with the harness's flags. A configured, unbuilt PETSc is enough, so make check-compile runs it
# against a newer PETSc's headers in minutes (PETSc's API drift shows before a user meets it)
PG_PROG_OBJS := $(patsubst $(PETSCGILU_DIR)/%.c,$(PG_OBJDIR)/programs/%.o,$(wildcard $(PETSCGILU_DIR)/tests/*.c $(PETSCGILU_DIR)/tutorials/*.c))
objects: $(PG_OBJS) $(PG_TEST_OBJS) $(PG_PROG_OBJS)
$(PG_OBJDIR)/programs/%.o: $(PETSCGILU_DIR)/%.c $(PG_CONFVARS)
	@mkdir -p $(@D)
	$(call pg_say,CC,$<)
	$(PG_Q)$(PCC) -c $(PCC_FLAGS) $(CCPPFLAGS) $(OPENMP_FLAG) $(PG_INCLUDES) $(PG_CWARN) $(CFLAGS) -MMD -MP -MF $(@:.o=.d) -MT $@ $< -o $@
-include $(PG_PROG_OBJS:.o=.d)

# (re)configure explicitly, e.g. make configure PETSCGILU_WITH_CUDA=0
configure: FORCE
	@$(PG_CONFIGURE_ENV) $(PETSCGILU_DIR)/config/install-deps
	@$(PG_CONFIGURE_ENV) $(PETSCGILU_DIR)/config/configure

# ------------------------------------------------------------------------------------------------ check
# mpiexec (Open MPI) refuses to run as root without these; tests run one OpenMP thread unless a
# test's env: (or OMP_NUM_THREADS=n on the make command line) says otherwise
ifeq ($(shell id -u),0)
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
endif
export OMPI_MCA_rmaps_base_oversubscribe := 1
# every test runs on this one node: shared memory and self only, so that Open MPI does not probe
# the network at each start (a third of a small test's time; the user's settings win)
export OMPI_MCA_btl ?= self,vader
export OMPI_MCA_pml ?= ob1
check: export OMP_NUM_THREADS := 1
# every test run with PETSc 3.22's harness checks on every PETSc: -checkfunctionlist (a destroyed object left no
# composed function behind) and the unused-options report off (tests give options of several types with one output;
# PETSc >= 3.19 prints the report by default, 3.18 only in debug builds)
check: export PETSC_OPTIONS := $(strip $(PETSC_OPTIONS) -checkfunctionlist -options_left no)
# every diff through tests/petscdiff-releases: PETSc's own wording of 3.24 and newer (-ksp_view) put into 3.18's (one
# expected output for all), then PETSc's petscdiff, which masks every floating-point number, then tests/numdiff, which
# compares their values within a tolerance
check: export PETSCDIFF := $(PETSCGILU_DIR)/tests/petscdiff-releases
check: export PETSCGILU_PETSCDIFF := $(PETSC_DIR)/lib/petsc/bin/petscdiff
# every mpiexec of the tests in a session directory of its own (tests/mpiexec-session says why); PETSc's harness
# scripts run $PETSCMPIEXEC
check: export PETSCGILU_MPIEXEC := $(MPIEXEC)
check: export PETSCMPIEXEC ?= $(PETSCGILU_DIR)/tests/mpiexec-session
# one-process runs as MPI singletons, without mpiexec (a third less CPU for a small test; tests/mpiexec-session says how
# the time limit is kept); PETSCGILU_MPIEXEC_SINGLETON=0 on the command line runs every test through mpiexec
check: export PETSCGILU_MPIEXEC_SINGLETON ?= 1

PG_TEST_MAKE   = $(MAKE) --no-print-directory -f $(PETSCGILU_DIR)/gmakefile.test PETSCGILU_DIR=$(PETSCGILU_DIR) \
                 PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) TESTDIR=$(PG_TESTDIR)
# the harness's log: named after the package's arch (build) since PETSc 3.24, after PETSC_ARCH before (gmakefile.test)
PG_TAPLOG      := $(PG_TESTDIR)/test_$(if $(PETSC_GE_3_24),build,$(PETSC_ARCH))_tap.log
PG_EX_TAPLOG   := $(PG_TESTDIR)/petsc-examples_tap.log
PG_EX_RUN      := $(PETSCGILU_DIR)/tests/petsc-examples/run
# s= selects harness labels (tests-ex1_1, tutorials-ex1_*); petsc-examples* patterns select the
# tests/petsc-examples/run suite, which runs only when s is empty or names it (the script gets
# s=<case name substring>: s='petsc-examples-ex45_np2*' -> s=ex45_np2; and PETSCGILU_CHECK_S=<the patterns>)
PG_S_EXAMPLES  := $(filter petsc-examples%,$(s))
PG_S_BENCH     := $(filter bench-smoke%,$(s))
PG_S_OPTIONS   := $(filter options%,$(s))
PG_S_PETSC4PY  := $(filter petsc4py%,$(s))
PG_S_CONFIGURE := $(filter configure%,$(s))
PG_S_EMULINK   := $(filter emu-link%,$(s))
PG_S_NUMDIFF   := $(filter numdiff%,$(s))
PG_S_HARNESS   := $(filter-out petsc-examples% bench-smoke% options% petsc4py% configure% emu-link% numdiff%,$(s))
PG_S_EX_SUBSTR := $(patsubst -%,%,$(patsubst petsc-examples%,%,$(subst *,,$(subst %,,$(firstword $(PG_S_EXAMPLES))))))
PG_RUN_HARNESS := $(if $(s),$(PG_S_HARNESS),1)
PG_RUN_EXAMPLES:= $(if $(s),$(PG_S_EXAMPLES),1)
PG_RUN_BENCH   := $(if $(s),$(PG_S_BENCH),1)
PG_RUN_OPTIONS := $(if $(s),$(PG_S_OPTIONS),1)
PG_RUN_PETSC4PY:= $(if $(s),$(PG_S_PETSC4PY),1)
PG_RUN_CONFIGURE:= $(if $(s),$(PG_S_CONFIGURE),1)
PG_RUN_EMULINK := $(if $(s),$(PG_S_EMULINK),1)
PG_RUN_NUMDIFF := $(if $(s),$(PG_S_NUMDIFF),1)
PG_NUMDIFF_TAPLOG := $(PG_TESTDIR)/numdiff_tap.log
PG_EMULINK_TAPLOG := $(PG_TESTDIR)/emu-link_tap.log
# config/configure against copies of this PETSc with complex or single scalars, 64-bit indices, an old release: taken or
# refused with an error that says why (s=configure runs it alone)
PG_CONFIGURE_TAPLOG := $(PG_TESTDIR)/configure_tap.log
# the options -help prints for each type against its man page and doc/ (runs PETSc's ksp ex45, which the
# petsc-examples suite builds; s=options runs it alone)
PG_OPTIONS_TAPLOG := $(PG_TESTDIR)/options_tap.log
PG_OPTIONS_CHECK  := $(PETSCGILU_DIR)/tests/options/check
PG_BENCH_TAPLOG:= $(PG_TESTDIR)/bench-smoke_tap.log
PG_BENCH_SMOKE := $(PETSCGILU_DIR)/tests/bench-smoke/run
# the bench smoke test runs beside the petsc-examples suite, the options check and the petsc4py suite (it is mostly
# Python and waiting for its own processes); its output is printed when it ends
PG_BENCH_OUT   := $(PG_TESTDIR)/bench-smoke.out
# the README's petsc4py snippet and tutorials/poisson.py under petsc4py (s=petsc4py runs them alone)
PG_PETSC4PY_TAPLOG := $(PG_TESTDIR)/petsc4py_tap.log
# kernel coverage: every process check runs logs the kernel instantiations it launches under cudaemu; at the end
# tests/kernels/coverage compares them with those nvcc emitted (one TAP line; skipped without CUDA or with s=)
PG_LAUNCH_LOG   := $(PG_TESTDIR)/cudaemu-launches.log
PG_KERNELS_TAPLOG := $(PG_TESTDIR)/kernels_tap.log
PG_COVERAGE     := $(PETSCGILU_DIR)/tests/kernels/coverage
PG_COVERAGE_SKIP = $(if $(s),s= selects some tests only,$(if $(filter 1,$(PETSCGILU_HAVE_CUDA)),$(if $(filter 1,$(PETSCGILU_HAVE_CUDAEMU)),,the build has no cudaemu),the build has no CUDA (no nvcc objects)))
check: export GILU_CUDAEMU_LAUNCH_LOG := $(PG_LAUNCH_LOG)

check: all
	@mkdir -p $(PG_TESTDIR); rm -f $(PG_TAPLOG) $(PG_EX_TAPLOG) $(PG_BENCH_TAPLOG) $(PG_KERNELS_TAPLOG) $(PG_OPTIONS_TAPLOG) $(PG_PETSC4PY_TAPLOG) $(PG_CONFIGURE_TAPLOG) $(PG_EMULINK_TAPLOG) $(PG_NUMDIFF_TAPLOG); : > $(PG_LAUNCH_LOG); status=0; bench=; \
	$(if $(PG_RUN_HARNESS),$(PG_TEST_MAKE) -j$(CHECK_JOBS) test $(if $(PG_S_HARNESS),s='$(PG_S_HARNESS)') || status=1;) \
	$(if $(PG_RUN_BENCH),if [ -x $(PG_BENCH_SMOKE) ]; then \
	  { $(MAKE) --no-print-directory -f $(PETSCGILU_DIR)/gmakefile.test PETSCGILU_DIR=$(PETSCGILU_DIR) PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) \
	      TESTDIR=$(PG_TESTDIR) $(PG_TESTDIR)/tests/ex1 $(PG_TESTDIR)/tutorials/ex1 $(PG_TESTDIR)/tests/ex8 $(if $(filter 1,$(PETSCGILU_HAVE_CUDAEMU)),$(PG_TESTDIR)/tests/ex20 $(PG_TESTDIR)/tests/ex21) > /dev/null && $(MAKE) --no-print-directory $(PG_STREAM) > /dev/null && \
	    PETSCGILU_DIR=$(PETSCGILU_DIR) $(PG_BENCH_SMOKE); } > $(PG_BENCH_OUT) 2>&1 & bench=$$!; \
	fi;) \
	$(if $(PG_RUN_EXAMPLES),if [ -x $(PG_EX_RUN) ]; then \
	  echo "Running tests/petsc-examples/run"; \
	  PETSCGILU_DIR=$(PETSCGILU_DIR) PETSCGILU_LIB=$(PG_LIB) PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) \
	  PETSCGILU_TESTDIR=$(PG_TESTDIR) PETSCGILU_EXAMPLES_TAP=$(PG_EX_TAPLOG) PETSCGILU_EXAMPLES_JOBS=$(CHECK_JOBS) MPIEXEC="$$PETSCMPIEXEC" \
	  PETSCGILU_CHECK_S='$(PG_S_EXAMPLES)' s='$(PG_S_EX_SUBSTR)' V='$(V)' REPLACE='$(REPLACE)' TIMEOUT='$(TIMEOUT)' \
	  $(PG_EX_RUN) || status=1; \
	fi;) \
	$(if $(PG_RUN_OPTIONS),echo "Running tests/options/check (-help, man pages and doc/ agree)"; \
	  $(PYTHON3) $(PG_OPTIONS_CHECK) --exe $(PG_BUILDDIR)/petsc-examples/ksp_ksp_tutorials_ex45 --lib $(PG_LIB) \
	    --src $(PETSCGILU_DIR)/src --doc $(PETSCGILU_DIR)/doc --tap $(PG_OPTIONS_TAPLOG) || status=1;) \
	$(if $(PG_RUN_PETSC4PY),echo "Running tests/petsc4py/run (README's petsc4py snippet, tutorials/poisson.py)"; \
	  PETSCGILU_DIR=$(PETSCGILU_DIR) PETSCGILU_LIB=$(PG_LIB) PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) \
	    PETSCGILU_PETSC4PY_TAP=$(PG_PETSC4PY_TAPLOG) TIMEOUT='$(TIMEOUT)' $(PETSCGILU_DIR)/tests/petsc4py/run || status=1;) \
	$(if $(PG_RUN_CONFIGURE),echo "Running tests/configure/check (which PETSc configure takes)"; \
	  PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) $(PETSCGILU_DIR)/tests/configure/check $(PG_CONFIGURE_TAPLOG) || status=1;) \
	$(if $(PG_RUN_EMULINK),echo "Running tests/emu-link.cu (two emulated objects compiled -O0 link into one library)"; \
	  if [ "$(PETSCGILU_HAVE_CUDAEMU)" != 1 ]; then r="ok 1 emu-link # SKIP the build has no cudaemu"; \
	  elif rm -rf $(PG_EMU_LINK_DIR) && $(MAKE) --no-print-directory $(PG_EMU_LINK) > $(PG_TESTDIR)/emu-link.out 2>&1; then r="ok 1 emu-link"; \
	  else r="not ok 1 emu-link"; sed 's/^/# /' $(PG_TESTDIR)/emu-link.out; status=1; fi; \
	  echo "$$r"; echo "$$r" > $(PG_EMULINK_TAPLOG);) \
	$(if $(PG_RUN_NUMDIFF),echo "Running tests/numdiff-check (the harness's comparison of numbers fails where it must)"; \
	  $(PETSCGILU_DIR)/tests/numdiff-check $(PG_NUMDIFF_TAPLOG) || status=1;) \
	if [ -n "$$bench" ]; then \
	  echo "Running tests/bench-smoke/run (bench/run.py at tiny sizes; ran beside the suites above)"; \
	  wait $$bench || status=1; cat $(PG_BENCH_OUT); \
	fi; \
	$(PYTHON3) $(PG_COVERAGE) --objdir $(PG_OBJDIR) --log $(PG_LAUNCH_LOG) --tap $(PG_KERNELS_TAPLOG) $(if $(PG_COVERAGE_SKIP),--skip '$(PG_COVERAGE_SKIP)') || status=1; \
	logs=; for f in $(PG_TAPLOG) $(PG_EX_TAPLOG) $(PG_BENCH_TAPLOG) $(PG_OPTIONS_TAPLOG) $(PG_PETSC4PY_TAPLOG) $(PG_CONFIGURE_TAPLOG) $(PG_EMULINK_TAPLOG) $(PG_NUMDIFF_TAPLOG) $(PG_KERNELS_TAPLOG); do [ -f $$f ] && logs="$$logs $$f"; done; \
	cat /dev/null $$logs | awk ' \
	  /^[ \t]*not ok/ { if ($$0 ~ /# *(SKIP|TODO)/) s++; else f++; next } \
	  /^[ \t]*ok/     { if ($$0 ~ /# *(SKIP|TODO)/) s++; else p++; next } \
	  END { printf "%d passed, %d failed, %d skipped\n", p, f, s; if (p + f + s == 0) { print "error: the harness produced no results" > "/dev/stderr"; exit 1 } exit (f > 0) }' \
	  || status=1; \
	exit $$status

# every sync point of the CUDA kernels load-bearing: each removed in turn, the emulated tests must fail
# (tests/mutations/run; MUTATE=regex selects files, MUTATIONS_JOBS=2 two mutants at a time, MUTATIONS_TESTS=cover
# only the fewest tests that launch each kernel instantiation of the file)
check-mutations: all
	@$(PYTHON3) $(PETSCGILU_DIR)/tests/mutations/run \
	  $(if $(MUTATIONS_JOBS),-j$(MUTATIONS_JOBS)) $(if $(MUTATIONS_TESTS),--tests $(MUTATIONS_TESTS)) $(if $(MUTATE),'$(MUTATE)')

# the same for the host threads: each wait, OpenMP barrier and acquire poll of src/**/*.c removed in turn, the
# threaded harness tests must fail (tests/mutations/run --host; MUTATE=regex, MUTATIONS_JOBS=2)
check-mutations-host: all
	@$(PYTHON3) $(PETSCGILU_DIR)/tests/mutations/run --host \
	  $(if $(MUTATIONS_JOBS),-j$(MUTATIONS_JOBS)) $(if $(MUTATE),'$(MUTATE)')

# pass-through to the harness makefile (s= V= REPLACE= NP= TIMEOUT= work there too)
print-test check-test-errors cleantest: FORCE
	+@$(PG_TEST_MAKE) $@

# ------------------------------------------------------------------------------------------------ run
# only the host library: the nvcc objects (lib/libpetscgilu_cuda.so, half of a first build) are not waited for; auto
# picks the host where that library is absent. THREADS=t: structilu's threads per process (OMP_NUM_THREADS).
run: pg-lib
	@PETSCGILU_DIR=$(PETSCGILU_DIR) PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) MAKE='$(MAKE)' \
	  RUN_N='$(N)' RUN_ARGS='$(ARGS)' RUN_NP='$(NP)' RUN_THREADS='$(THREADS)' MPIEXEC='$(MPIEXEC)' $(PETSCGILU_DIR)/config/run-main

# ------------------------------------------------------------------------------------------------ bench
# bench/run.py against PETSc's preconditioners in the same run; BENCH_ARGS='--resume --only poisson' etc.
# Results go to build/bench/results/; make bench PUBLISH=1 makes the report the one in bench/results/.
PG_STREAM := $(PG_BUILDDIR)/bench/stream
PYTHON3   ?= python3

$(PG_STREAM): $(PETSCGILU_DIR)/bench/stream.c
	@mkdir -p $(@D)
	$(call pg_say,CC,$<)
	$(PG_Q)$(PCC) -O3 -fopenmp $< -o $@ -lm

# the programs run by bench/run.py and its suites (rebuilt when out of date, so a suite never runs a stale binary)
PG_BENCH_PROGS = $(addprefix $(PG_TESTDIR)/tests/,ex1 ex7 ex8 ex9 ex10 ex11 ex16) $(addprefix $(PG_TESTDIR)/tutorials/,ex1 ex2 ex3)

bench bench-quick: all $(PG_STREAM)
	+@$(PG_TEST_MAKE) $(PG_BENCH_PROGS)
	@$(PETSCGILU_DIR)/bench/install-deps
	@$(PYTHON3) $(PETSCGILU_DIR)/bench/run.py --size $(if $(filter bench-quick,$@),quick,full) \
	  $(if $(and $(PUBLISH),$(filter bench,$@)),--publish) $(BENCH_ARGS)

# ------------------------------------------------------------------------------------------------ gpu-model
# what PCSTRUCTILU's kernels would cost on a GPU, counted by the emulation (doc/testing.md, "GPU cost model without a
# GPU"): tests/ex6 -counters_report, one line per stencil and DoF of the StructILU paper (those ex6 assembles) at a small grid
GPU_MODEL_STENCILS ?= star7 diamond13 box27
GPU_MODEL_DOFS     ?= 1 2 4 5 8
GPU_MODEL_N        ?= 8

gpu-model: all
	@$(if $(filter 1,$(PETSCGILU_HAVE_CUDAEMU)),:,echo "gpu-model: the build has no cudaemu (the emulation counts the kernels)"; exit 1)
	+@$(PG_TEST_MAKE) $(PG_TESTDIR)/tests/ex6
	@hdr=-counters_header; for s in $(GPU_MODEL_STENCILS); do for d in $(GPU_MODEL_DOFS); do \
	  $(PG_TESTDIR)/tests/ex6 -stencil $$s -dof $$d -n $(GPU_MODEL_N) -napply 1 -counters_report $$hdr $(GPU_MODEL_ARGS) || exit 1; hdr=; \
	done; done

# on a machine with an NVIDIA GPU: the device tests, the cuSPARSE baselines and petsc-examples with -gilu_backend cuda
check-gpu: all
	@PETSCGILU_DIR=$(PETSCGILU_DIR) PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) MPIEXEC='$(MPIEXEC)' $(PETSCGILU_DIR)/tests/gpu/run

bench-gpu: all
	@$(PYTHON3) $(PETSCGILU_DIR)/bench/gpu/run.py $(BENCH_ARGS)

# the kernel benchmark on a GPU (bench/gpu/perf: StructILU's sweeps and factorization vs cuSPARSE CSR/BSR, kernel
# times, GB/s, at the paper's stencils and sizes; its general-sparse part, tests/ex21: the triangular-solve engine's
# algorithms and PCFGDD's apply vs cuSPARSE's ILU(0) solves, SPCG's iterative phase vs PCG, ATS-ILU's setup vs ParILU's,
# BiCGSTAB end to end with PCFGDD vs with cuSPARSE's ILU(0),
# in GPU_PERF_SPARSE_SHARE of the budget) in GPU_PERF_BUDGET seconds; DRY_RUN=1 prints the plan and builds
# nothing; GPU_PERF_EMULATE=1 runs the plan's logic on the emulation at tiny grids. From the bundle of tests/gpu/bundle
# on a device machine: tests/gpu/on-device's stage perf (doc/testing.md)
gpu-perf: FORCE
	+@if [ '$(DRY_RUN)' != 1 ]; then $(MAKE) --no-print-directory all && \
	  $(MAKE) --no-print-directory -f $(PETSCGILU_DIR)/gmakefile.test PETSCGILU_DIR=$(PETSCGILU_DIR) TESTDIR=$(PG_TESTDIR) $(PG_TESTDIR)/tests/ex20 $(PG_TESTDIR)/tests/ex21 > /dev/null; fi && \
	  DRY_RUN='$(DRY_RUN)' $(if $(GPU_PERF_BUDGET),GPU_PERF_BUDGET='$(GPU_PERF_BUDGET)') $(if $(GPU_PERF_SPARSE_SHARE),GPU_PERF_SPARSE_SHARE='$(GPU_PERF_SPARSE_SHARE)') $(PETSCGILU_DIR)/bench/gpu/perf $(OUT)

# on a machine with an NVIDIA GPU, everything in one go: dependencies, build with CUDA, check-gpu (under a watchdog),
# the harness tests that need a device, bench-gpu and the performance model; one report in bench/results/.
# The script itself installs, configures and builds: no configure here, so it exits at once where there is no GPU.
gpu-validate: FORCE
	@$(PETSCGILU_DIR)/tests/gpu/validate $(GPU_VALIDATE_ARGS)

# the sources against PETSc 3.22.5's headers (or PETSC_DIR/PETSC_ARCH's): configured there, compiled, nothing linked
check-compile: FORCE
	@$(PETSCGILU_DIR)/tests/compile-check

# the same against Debian 12's PETSc with 64-bit indices (libpetsc64-real3.18-dev, installed by config/install-deps
# petsc64; CI runs it): the code that PetscInt's width changes compiles with warnings as errors
PETSC64_DIR ?= /usr/lib/petscdir/petsc64-3.18/x86_64-linux-gnu-real
check-compile-64: FORCE
	@$(PETSCGILU_DIR)/config/install-deps petsc64
	@PETSC_DIR=$(PETSC64_DIR) PETSC_ARCH= $(PETSCGILU_DIR)/tests/compile-check

# against the PETSc a GPU user has, built --with-cuda (PETSC_DIR= PETSC_ARCH=; doc/building.md): this tree copied and
# built there against it with its nvcc, its CUDA-PETSc branches checked, its device-free tests run (with a GPU also
# the GPU-resident solves); the user's build/ is not touched (tests/petsc-cuda/run)
check-petsc-cuda: FORCE
	@$(PETSCGILU_DIR)/tests/petsc-cuda/run

# this tree built by clang with libomp in a copy (build/clang/), warnings as errors, and its make check run there
# (tests/clang/run; installs Debian's clang and libomp-dev when missing). CI runs it: about 8 minutes
check-clang: FORCE
	@$(PETSCGILU_DIR)/config/install-deps clang
	@$(PETSCGILU_DIR)/tests/clang/run $(if $(s),'$(s)')

# the host threads under ThreadSanitizer: a copy of this tree built in build/tsan/ by clang with -fsanitize=thread and
# libomp (its archer tool tells TSan the OpenMP synchronization), the threaded cases run there; fails on any report
# (tests/clang/run --tsan). Not in make check or CI: minutes of build and runs
check-tsan: FORCE
	@$(PETSCGILU_DIR)/config/install-deps clang
	@THREADS='$(THREADS)' $(PETSCGILU_DIR)/tests/clang/run --tsan $(if $(TSAN_ALL),--all) $(if $(s),'$(s)')

# the generated test-matrix suite in PETSc's binary format (SIZES=small,medium,large; about 3 GB for large)
bench-matrices: all
	+@$(PG_TEST_MAKE) $(PG_TESTDIR)/tests/ex8
	@$(PYTHON3) $(PETSCGILU_DIR)/bench/gen-matrices --sizes $(or $(SIZES),small,medium) $(PG_BUILDDIR)/bench/matrices

# ------------------------------------------------------------------------------------------------ install
# the library and its headers only: the test library (build/lib/libpetscgilutest.so) and include/petscgilutest.h stay
PG_PETSC_PCDIR := $(PETSC_DIR)$(if $(PETSC_ARCH),/$(PETSC_ARCH))/lib/pkgconfig
PG_PETSC_PC := $(firstword $(basename $(notdir $(wildcard $(PG_PETSC_PCDIR)/PETSc.pc $(PG_PETSC_PCDIR)/petsc.pc))))
PG_PETSC_INC := $(filter -I%,$(PETSC_CC_INCLUDES))
PG_DEST      := $(DESTDIR)$(PREFIX)

install: all
	@echo "Installing petscgilu $(PETSCGILU_VERSION) in $(PG_DEST)"
	install -d $(PG_DEST)/lib $(PG_DEST)/lib/pkgconfig $(PG_DEST)/include
	install -m 755 $(PETSCGILU_DIR)/lib/$(PG_SONAME) $(PG_DEST)/lib/$(PG_SONAME)
	ln -sf $(PG_SONAME) $(PG_DEST)/lib/$(PG_LIBNAME)
	$(if $(PG_CUDA_LIB_IF),install -m 755 $(PETSCGILU_DIR)/lib/$(PG_CUDA_SONAME) $(PG_DEST)/lib/$(PG_CUDA_SONAME))
	$(if $(PG_CUDA_LIB_IF),ln -sf $(PG_CUDA_SONAME) $(PG_DEST)/lib/$(PG_CUDA_LIBNAME))
	install -m 644 $(PETSCGILU_DIR)/include/petscgilu.h $(PETSCGILU_DIR)/include/petscgiluversion.h $(PG_CONFH) $(PG_DEST)/include/
	if [ -d $(PETSCGILU_DIR)/include/petscgilu ]; then \
	  cd $(PETSCGILU_DIR)/include && find petscgilu -type f -name '*.h' -exec install -D -m 644 {} $(PG_DEST)/include/{} \; ; \
	fi
	@{ echo "prefix=$(PREFIX)"; \
	   echo 'includedir=$${prefix}/include'; \
	   echo 'libdir=$${prefix}/lib'; \
	   echo; \
	   echo "Name: petscgilu"; \
	   echo "Description: PETSc plugin library: GPU-oriented incomplete-factorization preconditioners"; \
	   echo "Version: $(PETSCGILU_VERSION)"; \
	   $(if $(PG_PETSC_PC),echo "Requires: $(PG_PETSC_PC)";) \
	   echo 'Cflags: -I$${includedir}$(if $(PG_PETSC_PC),, $(PG_PETSC_INC))'; \
	   echo 'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lpetscgilu$(if $(PG_PETSC_PC),, $(PETSC_LIB))'; \
	 } > $(PG_DEST)/lib/pkgconfig/petscgilu.pc
	@echo "  wrote $(PG_DEST)/lib/pkgconfig/petscgilu.pc$(if $(PG_PETSC_PC), (Requires: $(PG_PETSC_PC); PETSc's .pc is in $(PG_PETSC_PCDIR)))"
	@echo "  load it into any PETSc program with: -dll_append $(PREFIX)/lib/$(PG_LIBNAME)"

# ------------------------------------------------------------------------------------------------ misc
# clang-format pinned to the major version PETSc 3.25 requires (its checkclangformatversion): another major lays the
# same .clang-format out differently, so format and check-format refuse any other. config/install-deps clang-format
# installs Debian's clang-format-22 when missing; CLANG_FORMAT=/path/to/clang-format names another build of 22.
CLANG_FORMAT       ?= clang-format-22
PG_CLANG_FORMAT_MAJOR := 22
PG_FORMAT_FILES = $(shell cd $(PETSCGILU_DIR) && find src include tests tutorials bench -type f \
                    \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | LC_ALL=C sort)

pg-clang-format: FORCE
	@$(if $(filter clang-format-$(PG_CLANG_FORMAT_MAJOR),$(CLANG_FORMAT)),$(PETSCGILU_DIR)/config/install-deps clang-format)
	@v=$$($(CLANG_FORMAT) --version 2>/dev/null | sed -n 's/.*clang-format version \([0-9][0-9]*\)\..*/\1/p'); \
	if [ "$$v" != $(PG_CLANG_FORMAT_MAJOR) ]; then \
	  echo "petscgilu: '$(CLANG_FORMAT)' is clang-format version '$$v'; the format is defined by clang-format $(PG_CLANG_FORMAT_MAJOR) (PETSc's)" >&2; exit 1; fi

format: pg-clang-format
	@cd $(PETSCGILU_DIR) && printf '%s\n' $(PG_FORMAT_FILES) | xargs -P 2 -n 16 $(CLANG_FORMAT) -i

# the files clang-format would change, one a line, and exit 1 when there are any (reads only; about 3 s of CPU)
check-format: pg-clang-format
	@cd $(PETSCGILU_DIR) && n=0; total=0; for f in $(PG_FORMAT_FILES); do total=$$((total+1)); \
	  $(CLANG_FORMAT) "$$f" | cmp -s - "$$f" || { echo "$$f"; n=$$((n+1)); }; done; \
	if [ $$n -ne 0 ]; then echo "check-format: $$n of $$total files differ from $(CLANG_FORMAT)'s layout (make format fixes them)" >&2; exit 1; fi; \
	echo "check-format: $$total files formatted"

clean: FORCE
	$(RM) -r $(PG_OBJDIR) $(PG_TESTDIR) $(PETSCGILU_DIR)/lib $(PG_TESTLIB)

distclean: clean
	$(RM) -r $(PG_BUILDDIR)

help: FORCE
	@echo "petscgilu makefile targets:"
	@echo "  all (default)  configure when needed (config/install-deps, config/configure), build lib/$(PG_LIBNAME), with"
	@echo "                 CUDA lib/$(PG_CUDA_LIBNAME) (the nvcc objects; $(PG_LIBNAME) loads it when the cuda back-end is"
	@echo "                 considered), and the test library build/lib/libpetscgilutest.so (src/test/: test matrices, the"
	@echo "                 emulation's self-tests, the cuSPARSE baselines; linked by tests/, not installed)"
	@echo "  check          build, run tests/ and tutorials/ with PETSc's harness (build/tests), then"
	@echo "                 tests/petsc-examples/run if present; ends with 'N passed, N failed, N skipped'"
	@echo "                   s='tests-ex1_*'   select harness tests (labels: tests-<prog>_<suffix>, tutorials-...;"
	@echo "                                     s='petsc-examples*' selects only the petsc-examples suite; likewise"
	@echo "                                     s=options, s=bench-smoke, s=configure, s=petsc4py: README's snippet, tutorials/poisson.py;"
	@echo "                                     s=emu-link, s=numdiff: the -O0 link, the comparison of numbers)"
	@echo "                   V=1 verbose   REPLACE=1 rewrite outputs (read them!)   NP=n   TIMEOUT=s"
	@echo "                   EXTRA_OPTIONS='-opt'   VALGRIND=1   test-fail=1 (rerun failures)   CHECK_JOBS=2 (also the"
	@echo "                   petsc-examples cases at a time)   PETSCGILU_MPIEXEC_SINGLETON=0 (one-process tests through mpiexec too)"
	@echo "                 and the kernel coverage: every __global__ instantiation in the nvcc objects (*.cu.o) must"
	@echo "                 have been launched under cudaemu by some test (tests/kernels/coverage; one test in the count)"
	@echo "  check-mutations removes each sync point of the CUDA sources in turn (waits, fences, barriers, warp syncs),"
	@echo "                 rebuilds the emulated object, runs the emulated tests that launch its kernels under the"
	@echo "                 schedules inorder, reverse, random:7; ends with 'mutants: N, killed: K, ...' (tests/mutations/run)"
	@echo "                   MUTATE=regex (files)  MUTATIONS_JOBS=2  MUTATIONS_TESTS=cover (fewer tests; CI)"
	@echo "  check-mutations-host  the same for the host threads' waits, OpenMP barriers and acquire polls (src/**/*.c),"
	@echo "                 against the harness tests that run threads (tests/mutations/run --host)"
	@echo "  print-test     list the selected harness labels (same s=)"
	@echo "  run            build lib/$(PG_LIBNAME) (not the nvcc objects) and tutorials/ex1; 3D Poisson at N^3 with CG,"
	@echo "                 structilu vs PETSc's ILU(0) in the same run (on NP > 1 processes -pc_type bjacobi -sub_pc_type"
	@echo "                 ilu; structilu is then block Jacobi too, one block per process); one table: processes, threads,"
	@echo "                 iterations, setup (PCSetUp), solve (KSPSolve), apply (PCApply) in seconds from -log_view's CSV"
	@echo "                 (max over processes) and the ratios to PETSc's; logs in build/run/"
	@echo "                   N=64  NP=1  THREADS=t (structilu's host threads per process, sets OMP_NUM_THREADS; default:"
	@echo "                   OMP_NUM_THREADS, else the cores divided among the processes)  ARGS='..' (options for both)"
	@echo "  bench          build, then bench/run.py --size full: structilu (1, 2 threads) vs PETSc ilu (AIJ, BAIJ), icc,"
	@echo "                 bjacobi (2 ranks), hypre euclid/pilut/boomeramg on the stencil problems + STREAM, then the"
	@echo "                 feature suites; writes build/bench/results/<date>-<host>.{json,md}, plots; PUBLISH=1: also the"
	@echo "                 one report in bench/results/ (replacing the previous one)"
	@echo "  check-compile  compile the library, the test library, tests/ and tutorials/ (no link) with warnings as errors"
	@echo "                 against PETSc 3.22.5, unpacked and configured once in ~/.cache/petscgilu (config/petsc-3.22), or"
	@echo "                 against PETSC_DIR= PETSC_ARCH= (configured is enough); CI runs it (tests/compile-check)"
	@echo "  check-compile-64 the same against Debian's PETSc with 64-bit indices (installs libpetsc64-real3.18-dev; CI runs it)"
	@echo "  objects        compile every object and program without linking (what check-compile runs)"
	@echo "  check-petsc-cuda PETSC_DIR= PETSC_ARCH=  against a PETSc built --with-cuda (doc/building.md: PETSc 3.25 with"
	@echo "                 CUDA 13): a copy of this tree built there with PETSc's nvcc, the CUDA-vector branches checked,"
	@echo "                 make check there (no GPU needed; with one also ex45/ex19 on CUDA vectors; tests/petsc-cuda/run)"
	@echo "  check-clang    a copy of this tree built by clang with libomp in build/clang/ (warnings as errors), its make check"
	@echo "                 run there (tests/clang/run; installs clang and libomp-dev when missing; CI runs it)   s='tests-ex7_*'"
	@echo "  check-tsan     the host threads under ThreadSanitizer: a copy of this tree built by clang -fsanitize=thread with"
	@echo "                 libomp and its archer tool in build/tsan/, the threaded harness cases run there; fails on any"
	@echo "                 report (build/tsan/reports/; tests/clang/run --tsan)   s='tests-ex7_*' (other cases)   TSAN_ALL=1"
	@echo "                 (every case without the emulation, on THREADS=2 threads)"
	@echo "  check-gpu      device tests, cuSPARSE baselines and petsc-examples on a GPU (says so and exits 0 when there is none)"
	@echo "  gpu-perf       the kernel benchmark on a GPU (bench/gpu/perf): StructILU's sweeps and factorization vs cuSPARSE CSR/BSR,"
	@echo "                 kernel times (CUDA events), GB/s and fraction of peak, the model beside them, at the paper's stencils,"
	@echo "                 DoFs and sizes up to 512^3; build/bench/results/gpu-perf-<date>-<host>.{md,json,png} [OUT=dir]"
	@echo "                 GPU_PERF_BUDGET=420 (s)  DRY_RUN=1 (the plan, nothing run)  GPU_PERF_EMULATE=1 (cudaemu, tiny grids)"
	@echo "                 GPU_PERF_ONLY=regex (case names); its general-sparse part (tests/ex21, the sparse-* cases): the"
	@echo "                 triangular-solve engine's algorithms and auto vs cuSPARSE SpSV/bsrsv2 on the generated suite at ~1M"
	@echo "                 rows, PCFGDD's apply vs cuSPARSE ILU(0) solves at 4M rows, in GPU_PERF_SPARSE_SHARE=180 (s) of the budget"

	@echo "  bench-gpu      StructILU kernels vs cuSPARSE and end-to-end solves on a GPU (bench/gpu/run.py)"
	@echo "  gpu-validate   on a GPU machine, in one go: install-deps, build with CUDA, check-gpu with a watchdog (a hang"
	@echo "                 names its kernel), the cuda_device harness tests, bench-gpu and the performance model against"
	@echo "                 the measured times; writes bench/results/gpu-validate-<date>-<host>.{md,log}; without a GPU it"
	@echo "                 says so and exits 0 (GPU_VALIDATE_ARGS='--quick --timeout 120 --no-bench'; tests/gpu/validate --help)"
	@echo "  gpu-model      what PCSTRUCTILU's kernels would cost on a GPU, counted by the emulation (tests/ex6"
	@echo "                 -counters_report): per stencil and DoF the sectors moved over the fewest needed for factors and"
	@echo "                 vectors, dependent round trips per level (factorization, apply), launches, copies, syncs and"
	@echo "                 allocations per apply; one table (doc/testing.md)"
	@echo "                   GPU_MODEL_STENCILS='star7 diamond13 box27' GPU_MODEL_DOFS='1 2 4 5 8' GPU_MODEL_N=8"
	@echo "                   GPU_MODEL_ARGS='-pc_structilu_cuda_mapping lines'"
	@echo "  bench-matrices write the test-matrix suite (PETSc binary) to build/bench/matrices [SIZES=small,medium,large]"
	@echo "  bench-quick    the same at tiny sizes (build/bench/results/*-quick.*, never published)"
	@echo "                   BENCH_ARGS='--resume --only poisson --configs structilu-t2,ilu --timeout 600'"
	@echo "                 what each runs and how long it took (bench/run.py --summary; bench/README.md#duration):"
	@$(PYTHON3) $(PETSCGILU_DIR)/bench/run.py --summary 2> /dev/null || echo "                   ($(PYTHON3) bench/run.py --summary failed)"
	@echo "  install        PREFIX=$(PREFIX) [DESTDIR=]: library, headers, petscgiluconf.h, lib/pkgconfig/petscgilu.pc"
	@echo "  configure      re-run config/configure (PETSC_DIR= PETSC_ARCH= PETSCGILU_WITH_CUDA=0|1 PETSCGILU_WITH_OPENMP=0|1;"
	@echo "                 the values stick for later builds)"
	@echo "  format         clang-format -i every .c .h .cu under src include tests tutorials bench (PETSc's style,"
	@echo "                 .clang-format) with clang-format 22, the major version PETSc requires (CLANG_FORMAT="
	@echo "                 clang-format-22; installed by config/install-deps clang-format when missing)"
	@echo "  check-format   list the files format would change; exit 1 when there are any (in .ci/run)"
	@echo "  clean          remove objects, tests, lib/ and the test library    distclean: also the configuration (build/)"
	@echo "variables: V=1 (show commands) WERROR=1 (warnings are errors; CI) CFLAGS= NVCCFLAGS= CXXFLAGS= (cudaemu objects) LDFLAGS="
	@echo "each src/**/*.cu builds twice: nvcc -> <name>.cu.o (with CUDA; in lib/$(PG_CUDA_LIBNAME)) and the host C++ compiler"
	@echo "  -DGILU_CUDAEMU -> <name>.cudaemu.o (the emulated back-end, in lib/$(PG_LIBNAME); external names end in _cudaemu;"
	@echo "  see include/petscgilu/private/gilucuda.h)"
	@echo "one test program:  make -f gmakefile.test build/tests/tutorials/ex1   (or build/tests/tests/<name>)"
	@echo "  then run it:     build/tests/tutorials/ex1 -ksp_converged_reason -pc_type structilu"
	@echo "one harness test:  make check s='tests-ex1_1'   or   make -f gmakefile.test test s='tests-ex1_1'"

FORCE:
.PHONY: check-format pg-clang-format all pg-build pg-lib objects check check-compile check-compile-64 check-mutations check-mutations-host check-petsc-cuda check-tsan check-gpu gpu-validate gpu-perf gpu-model run bench bench-quick bench-gpu bench-matrices install configure format clean distclean help print-test check-test-errors cleantest FORCE
