"""The advice room: what to install and how, for one machine.  Every install command the tool
prints (the doctor's fix lines, `advise`, `advise --script`, `pin`, `rebuild` plans) is made here,
from the knowledge tables and the snapshot's facts; it never imports a command or a rule."""
