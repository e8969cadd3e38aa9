//! Unit tests of the read-only judgement.

use super::read_only;
