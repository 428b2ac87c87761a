"""A spatial serial chain of n revolute links with general inertias (every
inertia product nonzero, offsets and tilts between the joints, axes
cycling z, y, x): the worst case for generation time, used by
`generation.sh` to measure how generation scales with n.

    python3 spatial_chain.py 40 > chain40.spec
"""
import sys
n=int(sys.argv[1])
out=[f'[mechanism]\nname = "spatial_chain{n}"\ngravity = [0, 0, -9.81]\n']
axes=[[0,0,1],[0,1,0],[1,0,0]]
for i in range(n):
    out.append(f'''[[body]]
name = "b{i}"
mass = {1.0+0.1*i}
com = [{0.1+0.01*i}, {0.02}, {0.03}]
inertia = {{ xx = {0.1+0.001*(i%100)}, yy = 0.12, zz = 0.13, xy = 0.001, xz = 0.002, yz = 0.003 }}
''')
for i in range(n):
    parent = "ground" if i==0 else f"b{i-1}"
    ax=axes[i%3]
    origin = "" if i==0 else 'origin = { xyz = [0.3, 0.05, 0.02], rpy = [0.1, 0.2, 0.3] }\n'
    out.append(f'''[[joint]]
name = "j{i}"
type = "revolute"
parent = "{parent}"
child = "b{i}"
axis = {ax}
{origin}''')
print("\n".join(out))
