//! The local signer: with no certificate configured, the first start makes an ES256 key and a
//! certificate for it, issued by a local CA made with it, and keeps them in the data folder
//! (the key readable by its owner only). Replicas sharing a database share one local signer:
//! the first to start keeps its own in the database, and the others are given it. Validators call this signer untrusted: its CA is on
//! no trust list. A certificate from a CA on the C2PA trust list replaces it (`--c2pa-cert`).

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, PKCS_ECDSA_P256_SHA256,
};

use super::CredentialsError;

/// Where the local signer's certificate chain and key are kept, under the data folder.
pub fn paths(data: &Path) -> (PathBuf, PathBuf) {
    let folder = data.join("credentials");
    (
        folder.join("local-signer.crt.pem"),
        folder.join("local-signer.key.pem"),
    )
}

/// The local signer's certificate chain (the signer's certificate, then its CA's) and key, in
/// PEM: read from the data folder, or made and kept there on first use.
pub fn load_or_make(data: &Path) -> Result<(Vec<u8>, Vec<u8>), CredentialsError> {
    let (chain_path, key_path) = paths(data);
    if let (Ok(chain), Ok(key)) = (std::fs::read(&chain_path), std::fs::read(&key_path)) {
        return Ok((chain, key));
    }
    let (chain, key) = make()?;
    keep(data, chain.as_bytes(), key.as_bytes())?;
    tracing::warn!(
        certificate = %chain_path.display(),
        "made a local Content Credentials signer: validators will call it untrusted until a \
         certificate from a CA on the C2PA trust list is configured (--c2pa-cert, --c2pa-key)"
    );
    Ok((chain.into_bytes(), key.into_bytes()))
}

/// Keeps `chain` and `key` (PEM) as the data folder's local signer.
pub fn keep(data: &Path, chain: &[u8], key: &[u8]) -> Result<(), CredentialsError> {
    let (chain_path, key_path) = paths(data);
    if std::fs::read(&chain_path).is_ok_and(|kept| kept == chain)
        && std::fs::read(&key_path).is_ok_and(|kept| kept == key)
    {
        return Ok(());
    }
    if let Some(folder) = chain_path.parent() {
        std::fs::create_dir_all(folder)?;
    }
    write_private(&key_path, key)?;
    std::fs::write(&chain_path, chain)?;
    Ok(())
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

fn name(common: &str) -> DistinguishedName {
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, common);
    name.push(DnType::OrganizationName, "Studio");
    name
}

/// A new local CA and a signing certificate it issued (C2PA's profile: not a CA, digital
/// signature, e-mail protection), with the signer's ES256 key: the chain and the key in PEM.
fn make() -> Result<(String, String), CredentialsError> {
    let failed = |e: rcgen::Error| CredentialsError::Certificate(e.to_string());
    let ca_key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(failed)?;
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(failed)?;
    ca.distinguished_name = name("Studio local signing CA");
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca.self_signed(&ca_key).map_err(failed)?;
    let issuer = Issuer::new(ca, ca_key);

    let key = KeyPair::generate_for(&PKCS_ECDSA_P256_SHA256).map_err(failed)?;
    let mut signer = CertificateParams::new(Vec::<String>::new()).map_err(failed)?;
    signer.distinguished_name = name("Studio local signer");
    signer.is_ca = IsCa::ExplicitNoCa;
    signer.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    signer.extended_key_usages = vec![ExtendedKeyUsagePurpose::EmailProtection];
    signer.use_authority_key_identifier_extension = true;
    let signer_cert = signer.signed_by(&key, &issuer).map_err(failed)?;
    Ok((
        format!("{}{}", signer_cert.pem(), ca_cert.pem()),
        key.serialize_pem(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_signer_is_made_once_and_its_key_kept_private() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_make(dir.path()).unwrap();
        let again = load_or_make(dir.path()).unwrap();
        assert_eq!(first, again, "made once, then read");
        let chain = String::from_utf8(first.0).unwrap();
        assert_eq!(chain.matches("BEGIN CERTIFICATE").count(), 2);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(paths(dir.path()).1)
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "the key is its owner's alone");
        }
    }
}
