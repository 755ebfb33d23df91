"""suitegen: a conformance test-suite generator for the CUDA C++ compiler (nvcc)."""
__version__ = "0.1.0"
