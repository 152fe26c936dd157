"""What the small benchmark scripts (busycore.py, memory.py, tutorials.py) share: PETSc's tutorials built unchanged,
and writing a result as STEM.json and STEM.md."""
import json
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PETSC_DIR = os.environ.get('PETSC_DIR', '/usr/lib/petsc')
PETSC_ARCH = os.environ.get('PETSC_ARCH', '')


def petscvar(name):
    with open(os.path.join(PETSC_DIR, PETSC_ARCH, 'lib', 'petsc', 'conf', 'petscvariables')) as f:
        for line in f:
            m = re.match(r'^%s\s*=\s*(.*)$' % name, line)
            if m:
                return m.group(1).strip()
    return ''


def build_petsc_example(src):
    """PETSc's example src (e.g. 'ksp/ksp/tutorials/ex45.c'), built unchanged with PETSc's compiler and flags into
    build/bench/ (as tests/petsc-examples/run does); returns the executable (built once)"""
    exe = os.path.join(ROOT, 'build', 'bench', os.path.splitext(src)[0].replace('/', '_'))
    if os.path.exists(exe):
        return exe
    for d in ['share/petsc/examples/src', os.path.join(PETSC_ARCH, 'share/petsc/examples/src'), 'src']:
        path = os.path.join(PETSC_DIR, d, src)
        if os.path.exists(path):
            break
    else:
        raise SystemExit('PETSc example %s not found under %s (Debian: libpetsc3.18-dev-examples)' % (src, PETSC_DIR))
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    cmd = '%s -O2 %s %s -o %s %s -lm' % (petscvar('PCC'), petscvar('PETSC_CC_INCLUDES'), path, exe, petscvar('PETSC_WITH_EXTERNAL_LIB'))
    subprocess.run(cmd, shell=True, check=True)
    return exe


def write(stem, res, lines):
    """res as STEM.json, the markdown lines as STEM.md (the folder made if needed); the lines are printed too."""
    os.makedirs(os.path.dirname(stem) or '.', exist_ok=True)
    with open(stem + '.json', 'w') as f:
        json.dump(res, f, indent=1)
    with open(stem + '.md', 'w') as f:
        f.write('\n'.join(lines))
    print('\n'.join(lines))
