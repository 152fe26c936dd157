"""What the small benchmark scripts (busycore.py, memory.py) share: writing a result as STEM.json and STEM.md."""
import json
import os


def write(stem, res, lines):
    """res as STEM.json, the markdown lines as STEM.md (the folder made if needed); the lines are printed too."""
    os.makedirs(os.path.dirname(stem) or '.', exist_ok=True)
    with open(stem + '.json', 'w') as f:
        json.dump(res, f, indent=1)
    with open(stem + '.md', 'w') as f:
        f.write('\n'.join(lines))
    print('\n'.join(lines))
