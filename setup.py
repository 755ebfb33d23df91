"""The wheel's packages (the rest of the configuration is pyproject.toml's): every package folder under suitegen/,
found, so that a new one cannot be left out, and the oracle and templates that pyproject.toml's package-dir maps
into the wheel as suitegen.data.*."""
from setuptools import find_namespace_packages, setup

DATA = ["suitegen.data.oracle", "suitegen.data.templates"]

setup(packages=[*find_namespace_packages(include=["suitegen", "suitegen.*"], exclude=["*.__pycache__"]), *DATA])
