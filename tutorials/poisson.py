#!/usr/bin/python3
"""Tutorial: the 3D Poisson problem of tutorials/ex1.c in petsc4py, solved by CG with PETSc's ILU(0) and with
petscgilu's StructILU, loaded into petsc4py's PETSc by -dll_append.

  PDE:  -Laplace u = f in (0,1)^3, u = g on the boundary, with the exact solution u = 1 + x^2 + 2 y^2 + 3 z^2
        (f = -12, g = u); second-order central differences on the m^3 interior nodes of a uniform grid (star-7),
        the boundary values moved to the right-hand side: ex1.c's matrix and right-hand side, entry for entry.

  Run it with the Python that has Debian's petsc4py (python3-petsc4py, which config/install-deps installs):
    /usr/bin/python3 tutorials/poisson.py                                     (17^3: ILU(0) and StructILU, 16 iterations each)
    /usr/bin/python3 tutorials/poisson.py -da_grid_x 64 -da_grid_y 64 -da_grid_z 64
    /usr/bin/python3 tutorials/poisson.py -ilu_pc_factor_levels 1 -structilu_pc_structilu_levels 1     (ILU(1))
    /usr/bin/python3 tutorials/poisson.py -dll_append /path/to/lib/libpetscgilu.so -structilu_ksp_view
  The two solvers have the options prefixes ilu_ and structilu_, so each takes its own -<prefix>ksp_... and
  -<prefix>pc_... options. Without -dll_append the library of this source tree (../lib/libpetscgilu.so) is loaded.
"""
import os
import sys

import petsc4py

# -dll_append must reach PetscInitialize(), i.e. petsc4py.init(); with the option the plugin registers its types
# (PCSTRUCTILU "structilu", ...) as a C program linked with it would after PetscGILUInitializePackage()
args = sys.argv
if "-dll_append" not in args:
    lib = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "lib", "libpetscgilu.so")
    args = args + ["-dll_append", os.path.normpath(lib)]
petsc4py.init(args)
from petsc4py import PETSc  # noqa: E402 (after petsc4py.init, which initializes PETSc with the options)


def exact(x, y, z):
    """The exact solution, also the boundary data g."""
    return 1.0 + x * x + 2.0 * y * y + 3.0 * z * z


def assemble(da):
    """The matrix and right-hand side of ex1.c on the DMDA da (3D, star stencil, one DoF)."""
    M, N, P = da.getSizes()
    h = [1.0 / (m + 1) for m in (M, N, P)]  # the m unknowns of a direction lie strictly inside (0, 1)
    ih2 = [1.0 / (hd * hd) for hd in h]
    A = da.createMatrix()  # knows its DMDA: StructILU reads the grid and the stencil from it
    b = da.createGlobalVec()
    (xs, xe), (ys, ye), (zs, ze) = da.getRanges()
    row, col = PETSc.Mat.Stencil(), PETSc.Mat.Stencil()
    with da.getVecArray(b) as barr:  # indexed by the global grid indices (i, j, k)
        for k in range(zs, ze):
            for j in range(ys, ye):
                for i in range(xs, xe):
                    x, y, z = (i + 1) * h[0], (j + 1) * h[1], (k + 1) * h[2]
                    row.index = (i, j, k)
                    # centre, then the neighbours that are unknowns; a neighbour on the boundary is known: its
                    # value moves to the right-hand side (Dirichlet elimination)
                    A.setValueStencil(row, row, 2.0 * (ih2[0] + ih2[1] + ih2[2]))
                    v = -12.0  # f = -Laplace u
                    idx, ext = (i, j, k), (M, N, P)
                    for d in range(3):
                        for step in (-1, 1):
                            nb = list(idx)
                            nb[d] += step
                            if 0 <= nb[d] < ext[d]:
                                col.index = tuple(nb)
                                A.setValueStencil(row, col, -ih2[d])
                            else:
                                pt = [x, y, z]
                                pt[d] = 0.0 if step < 0 else 1.0
                                v += ih2[d] * exact(*pt)
                    barr[i, j, k] = v
    A.assemble()
    return A, b


def reason_name(reason):
    names = {v: k for k, v in vars(PETSc.KSP.ConvergedReason).items() if isinstance(v, int)}
    return names.get(reason, str(reason))


def solve(A, b, pc_type):
    """CG with the preconditioner pc_type; options prefix '<pc_type>_'. Returns the KSP and the solution."""
    ksp = PETSc.KSP().create(A.getComm())
    ksp.setOptionsPrefix(pc_type + "_")
    ksp.setOperators(A)
    ksp.setType("cg")
    ksp.getPC().setType(pc_type)
    ksp.setFromOptions()
    x = b.duplicate()
    ksp.solve(b, x)
    return ksp, x


def main():
    da = PETSc.DMDA().create(dim=3, sizes=(17, 17, 17), stencil_type=PETSc.DMDA.StencilType.STAR, stencil_width=1,
                             setup=False)
    da.setFromOptions()  # -da_grid_x/y/z
    da.setUp()
    A, b = assemble(da)
    PETSc.Sys.Print("Poisson %d x %d x %d, CG" % da.getSizes())
    r = b.duplicate()
    for pc_type in ("ilu", "structilu"):
        ksp, x = solve(A, b, pc_type)
        A.mult(x, r)
        r.aypx(-1.0, b)  # r = b - A x, the true residual
        ok = r.norm() < 1.0e-4 * b.norm()
        PETSc.Sys.Print("%-9s (PC type %s): %d iterations, %s, ||b - A x|| / ||b|| %s" %
                        ("petscgilu" if pc_type != "ilu" else "PETSc", ksp.getPC().getType(), ksp.getIterationNumber(),
                         reason_name(ksp.getConvergedReason()), "< 1e-4" if ok else "> 1e-4 (not converged)"))
        ksp.destroy()
        x.destroy()


if __name__ == "__main__":
    main()
