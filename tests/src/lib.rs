//! airlock-tests: integration tests across the layers; the tests live in `tests/tests/`.
