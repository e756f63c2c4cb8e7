"""Child processes: starting jaxlint's own modules in one (``launch``), finding and ending
what they started (``procs``), and capturing a C library's stderr (``fdcapture``)."""
