#!/usr/bin/env python3
"""Every .svg under the given folders is well-formed XML with a <title> and a <desc>."""
import sys
import xml.dom.minidom
from pathlib import Path

bad = 0
count = 0
for root in sys.argv[1:]:
    for path in sorted(Path(root).rglob("*.svg")):
        count += 1
        try:
            doc = xml.dom.minidom.parse(str(path))
        except Exception as e:  # noqa: BLE001 - report every parse failure by name
            print(f"{path}: not well-formed: {e}")
            bad += 1
            continue
        svg = doc.documentElement
        if svg.tagName != "svg" or not svg.getElementsByTagName("title") or not svg.getElementsByTagName("desc"):
            print(f"{path}: needs an <svg> root with <title> and <desc>")
            bad += 1
if count == 0:
    print("no .svg files found")
    sys.exit(1)
print(f"{count - bad} passed, {bad} failed")
sys.exit(1 if bad else 0)
