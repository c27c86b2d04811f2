//! Integration tests of wisp-install: the real npm against a static registry on loopback.
