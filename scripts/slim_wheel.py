#!/usr/bin/env python3
"""Copies a wheel keeping only its Python sources, stubs and .dist-info metadata, and the
names of its extension modules (empty): what `index build` reads. triton and xformers wheels
are 100-260 MB of compiled code.

    python3 slim.py WHEEL OUT_DIR
"""
import os
import sys
import zipfile

src, out_dir = sys.argv[1], sys.argv[2]
dest = os.path.join(out_dir, os.path.basename(src))
with zipfile.ZipFile(src) as z, zipfile.ZipFile(dest + ".tmp", "w", zipfile.ZIP_DEFLATED) as o:
    for info in sorted(z.infolist(), key=lambda i: i.filename):
        name = info.filename
        source = name.endswith((".py", ".pyi")) or ".dist-info/" in name
        extension = name.endswith((".so", ".pyd")) or ".so." in name
        if not (source or extension):
            continue
        zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        zi.compress_type = zipfile.ZIP_DEFLATED
        o.writestr(zi, z.read(name) if source else b"")
os.replace(dest + ".tmp", dest)
print(dest, os.path.getsize(dest))
