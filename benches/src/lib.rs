//! airlock-benches: criterion benches and the ratio gate (issue 9). No benchmark exists yet.
