"""tests/petsc4py/readme.py: the petsc4py snippet of README.md, run as written there, does what the README says.

  PETSCGILU_DIR=. PETSCGILU_LIB=lib/libpetscgilu.so /usr/bin/python3 tests/petsc4py/readme.py

The snippet is read from README.md at run time (the ```python block after "**petsc4py.**"), so the README
cannot drift from what is tested; its placeholder library path /path/to/lib/libpetscgilu.so (which must occur
exactly once) is replaced by $PETSCGILU_LIB and nothing else is changed. It is executed, then the KSP it
leaves behind solves tutorials/ex1.c's 3D Poisson problem (17^3, assembled by tutorials/poisson.py) with CG
after KSPSetFromOptions() and KSPSetUp(): the PC must still be of type structilu and the solve must converge
in the iterations of tutorials/ex1.c with PETSc's ILU(0) (tutorials/output/ex1_ilu_dim-3.out), which StructILU
reproduces. Prints what it checked; exits 1 with the reason when a check fails.
"""
import os
import re
import sys

PLACEHOLDER = "/path/to/lib/libpetscgilu.so"


def fail(msg):
    print("readme.py: " + msg, file=sys.stderr)
    sys.exit(1)


def readme_snippet(path):
    text = open(path).read()
    at = text.find("**petsc4py.**")
    if at < 0:
        fail("%s has no **petsc4py.** paragraph" % path)
    m = re.compile(r"^```python\n(.*?)^```", re.S | re.M).search(text, at)
    if not m:
        fail("%s has no ```python block after **petsc4py.**" % path)
    return m.group(1)


def main():
    top = os.environ.get("PETSCGILU_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    lib = os.environ.get("PETSCGILU_LIB") or os.path.join(top, "lib", "libpetscgilu.so")
    code = readme_snippet(os.path.join(top, "README.md"))
    if code.count(PLACEHOLDER) != 1:
        fail("the README's snippet names %s %d times, expected once" % (PLACEHOLDER, code.count(PLACEHOLDER)))
    code = code.replace(PLACEHOLDER, lib)
    ns = {"__name__": "__readme__"}
    exec(compile(code, "README.md (petsc4py snippet)", "exec"), ns)
    if "ksp" not in ns or "PETSc" not in ns:
        fail("the README's snippet defines no ksp or no PETSc")
    PETSc, ksp = ns["PETSc"], ns["ksp"]

    # the Poisson problem of the tutorial (importing it after the snippet: its petsc4py.init() is then a no-op)
    sys.path.insert(0, os.path.join(top, "tutorials"))
    import poisson

    da = PETSc.DMDA().create(dim=3, sizes=(17, 17, 17), stencil_type=PETSc.DMDA.StencilType.STAR, stencil_width=1)
    A, b = poisson.assemble(da)
    ksp.setOperators(A)
    ksp.setType("cg")
    ksp.setFromOptions()
    ksp.setUp()
    pc_type = ksp.getPC().getType()
    x = b.duplicate()
    ksp.solve(b, x)
    its, reason = ksp.getIterationNumber(), ksp.getConvergedReason()
    ref = open(os.path.join(top, "tutorials", "output", "ex1_ilu_dim-3.out")).read()
    want = int(re.search(r"Number of iterations = (\d+)", ref).group(1))
    print("README snippet: PC type %s, CG %d iterations (converged reason %d); tutorials/ex1.c with ILU(0): %d"
          % (pc_type, its, reason, want))
    if pc_type != "structilu":
        fail("the PC type is %s after KSPSetFromOptions() and KSPSetUp(), not structilu" % pc_type)
    if reason <= 0:
        fail("CG did not converge (reason %d)" % reason)
    if its != want:
        fail("CG took %d iterations, tutorials/ex1.c takes %d with ILU(0) and StructILU" % (its, want))


if __name__ == "__main__":
    main()
