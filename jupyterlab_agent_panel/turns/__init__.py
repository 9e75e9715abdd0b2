"""One turn, the same on the server and in the kernel: driven to exactly one terminal frame,
one per thread at a time, its resume decisions checked, its frames valid JSON, its usage summed."""
