"""Fleet mode (`torch-envcheck fleet`): every rank of a torchrun / srun / mpirun job collects the
doctor's snapshot, rank 0 gathers them and prints one report: the fleet's verdict, what differs
across ranks, each rank's failures, findings only a fleet can have, and the collective bandwidth.

Modules: launch (RANK/WORLD_SIZE from torchrun, Slurm or Open MPI), timeouts (deadlines, probes
under a time limit), wire (the snapshot exchange over the rendezvous store: JSON bytes, size-limited),
rank_facts (what a rank knows about itself), records (what a rank record says), table (the heterogeneity
table), rules (fleet-only findings), bandwidth (all_reduce sweep), aggregate (records -> the fleet report),
render (terminal, Markdown, JSON), output (stdout and --save), load (a saved report),
worker (one rank's part).  benchmarks/fleet_scale.py (not shipped) times a 1024-rank aggregation.  The command is commands/fleet.py.
"""

FLEET_SCHEMA = "torch_envcheck.fleet/1"
