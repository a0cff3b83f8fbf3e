//! airlock-ffi: the C ABI over airlock-core (issue 3). Nothing is exported yet.
