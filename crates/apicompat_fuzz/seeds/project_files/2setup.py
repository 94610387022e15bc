2from setuptools import setup, find_packages

REQS = ["torch>=2.0", "numpy"]
extras = {"gpu": ["cupy"], "all": REQS + ["scipy"]}

setup(
    name="demo",
    python_requires=">=3.8",
    install_requires=REQS + ["requests"],
    extras_require=extras,
    tests_require=[f"pytest{v}" for v in ("",)],
    packages=find_packages(),
    **dict(zip_safe=False),
)
