"""The facts layer: the only readers of a snapshot.  core (platform, torch, driver, GPUs,
libraries, toolchain, extension), conda (the `conda` section), tensorflow (the `tensorflow` and
`file_owners` sections).  Rules, renderers and commands read facts through these accessors."""
