//! TLS for every outgoing connection (providers, downloads, S3 and PostgreSQL) uses one crypto
//! provider: ring, the one sqlx's rustls builds. reqwest and object_store are built without
//! their aws-lc default, whose C build was the longest single step of a first start.

/// Makes ring the process's rustls provider; later calls (and a provider already set) keep it.
pub fn use_ring() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
