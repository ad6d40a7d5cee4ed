"""The compiled extension `torch_envcheck._C`: how it is built (buildcfg, toolchain), found and
loaded (extension), what it reports (info) and its custom kernels as Python functions (ops).
The binary itself stays at the package root (torch_envcheck/_C*.so) so its module name is stable."""
