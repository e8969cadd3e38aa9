//! Unit tests of the facts: what never matches, macros followed, checks and reassignments.
