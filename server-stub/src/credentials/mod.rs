//! Content Credentials (C2PA): every video Studio writes to a preview or the library carries a
//! manifest in the MP4 itself (the BMFF binding), signed by the server, saying it was made
//! with AI, by which model, for which job; an export says it is a composite of its shots'
//! takes, each an ingredient with its own manifest. Written and read with the Content
//! Authenticity Initiative's `c2pa` crate (`manifest.rs` says what is recorded, `report.rs`
//! what a reader is told, `local.rs` makes the signer used when none is configured).

pub mod local;
pub mod manifest;
pub mod report;

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

use c2pa::crypto::raw_signature::SigningAlg;
use c2pa::{create_signer, Builder, Context};

pub use manifest::{Facts, Made};
pub use report::Report;

#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    #[error("the signing certificate could not be made: {0}")]
    Certificate(String),
    #[error("Content Credentials: {0}")]
    C2pa(#[from] c2pa::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// An ingredient's bytes: a take read from storage as the signing reads it.
pub trait Source: Read + Seek + Send {}
impl<T: Read + Seek + Send> Source for T {}

/// An ingredient of a video: its title, and its bytes (whose own manifest is kept in it).
pub struct Ingredient {
    pub title: String,
    pub source: Box<dyn Source>,
}

/// How the server signs: its certificate chain and key (configured, or the local signer),
/// and whether prompts are recorded.
pub struct Signing {
    chain: Vec<u8>,
    key: Vec<u8>,
    /// The signer is the local one made on first start, which validators call untrusted.
    pub local: bool,
    prompts: bool,
}

/// Where the signing certificate comes from.
pub enum SignerSource {
    /// A certificate chain and its private key, in PEM files.
    Files { chain: PathBuf, key: PathBuf },
    /// The local signer in the data folder (made on first start).
    Local { data: PathBuf },
}

/// Shows which signer, never its key.
impl std::fmt::Debug for Signing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signing")
            .field("local", &self.local)
            .field("prompts", &self.prompts)
            .finish_non_exhaustive()
    }
}

impl Signing {
    /// Reads (or makes) the signer; `prompts` records each job's prompt in its manifest.
    pub fn load(source: SignerSource, prompts: bool) -> Result<Signing, CredentialsError> {
        let (chain, key, local) = match source {
            SignerSource::Files { chain, key } => {
                (std::fs::read(chain)?, std::fs::read(key)?, false)
            }
            SignerSource::Local { data } => {
                let (chain, key) = local::load_or_make(&data)?;
                (chain, key, true)
            }
        };
        let signing = Signing {
            chain,
            key,
            local,
            prompts,
        };
        // A key that does not sign is found at start, not at the first video.
        signing.signer()?;
        Ok(signing)
    }

    /// The local signer's certificate chain and key, in PEM (`None` for a configured one).
    pub fn local_pem(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        self.local.then(|| (self.chain.clone(), self.key.clone()))
    }

    /// This signing with the local signer the replicas share (`chain` and `key` in PEM), kept in
    /// the data folder `data` too.
    pub fn sharing_local(
        &self,
        data: &Path,
        chain: Vec<u8>,
        key: Vec<u8>,
    ) -> Result<Signing, CredentialsError> {
        local::keep(data, &chain, &key)?;
        let signing = Signing {
            chain,
            key,
            local: true,
            prompts: self.prompts,
        };
        signing.signer()?;
        Ok(signing)
    }

    fn signer(&self) -> Result<Box<dyn c2pa::Signer>, CredentialsError> {
        Ok(create_signer::from_keys(
            &self.chain,
            &self.key,
            SigningAlg::Es256,
            None,
        )?)
    }

    /// Whether a job's prompt goes into its manifest.
    pub fn records_prompts(&self) -> bool {
        self.prompts
    }

    /// Writes `source` to `dest` with a signed manifest of `facts` embedded, and
    /// `ingredients` (a parent for an edit or a provider's signed video, the components of a
    /// cut) each with its own manifest. Blocking.
    pub fn sign(
        &self,
        facts: &Facts,
        source: &Path,
        dest: &Path,
        ingredients: Vec<Ingredient>,
    ) -> Result<(), CredentialsError> {
        self.sign_stream(facts, &mut std::fs::File::open(source)?, dest, ingredients)
    }

    /// [`Signing::sign`] from any stream (a stored video read by range).
    pub fn sign_stream(
        &self,
        facts: &Facts,
        source: &mut (impl Read + Seek + Send),
        dest: &Path,
        ingredients: Vec<Ingredient>,
    ) -> Result<(), CredentialsError> {
        let definition = manifest::definition(facts, env!("CARGO_PKG_VERSION"));
        let mut builder = Builder::from_context(context()?).with_definition(definition)?;
        let relationship = match facts.made {
            Made::Cut => "componentOf",
            _ => "parentOf",
        };
        for (n, mut ingredient) in ingredients.into_iter().enumerate() {
            let mut about = serde_json::json!({
                "title": ingredient.title,
                "relationship": relationship,
            });
            if n == 0 && relationship == "parentOf" {
                about["label"] = manifest::PARENT_LABEL.into();
            }
            builder.add_ingredient_from_stream(
                about.to_string(),
                "video/mp4",
                &mut ingredient.source,
            )?;
        }
        let mut output = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dest)?;
        builder.sign(self.signer()?.as_ref(), "video/mp4", source, &mut output)?;
        Ok(())
    }
}

/// The crate's settings for signing, so that its memory does not grow with the video:
/// - the `mdat` payload is hashed as a Merkle tree of 1 MiB leaves (the C2PA 2.x BMFF hash),
///   each leaf read on its own, where a flat hash reads it in 256 MB chunks, two at a time;
///   the leaves' hashes stay in the manifest (no proof boxes are added after the media);
/// - its working copy of the video spills to a temporary file past 16 MB (its default keeps up
///   to 512 MB in memory).
fn context() -> Result<Context, CredentialsError> {
    Ok(Context::new().with_settings(SETTINGS)?)
}

const SETTINGS: &str = r#"{"core": {
    "backing_store_memory_threshold_in_mb": 16,
    "merkle_tree_chunk_size_in_kb": 1024,
    "merkle_tree_max_proofs": 0
}}"#;

/// The `uuid` of the box the BMFF binding keeps a C2PA manifest store in.
const C2PA_BOX: [u8; 16] = [
    0xd8, 0xfe, 0xc3, 0xd6, 0x1b, 0x0e, 0x48, 0x3c, 0x92, 0x97, 0x58, 0x28, 0x87, 0x7e, 0xc4, 0x81,
];

/// Whether an MP4 carries a C2PA manifest store, by its top-level boxes alone (a few small
/// reads, no hashing); `None` when the file is not an MP4 (its first box is not `ftyp`).
/// Blocking.
pub fn carries_manifest(stream: &mut (impl Read + Seek)) -> std::io::Result<Option<bool>> {
    let end = stream.seek(std::io::SeekFrom::End(0))?;
    let mut at = 0;
    while at + 8 <= end {
        stream.seek(std::io::SeekFrom::Start(at))?;
        let mut header = [0u8; 16];
        stream.read_exact(&mut header[..8])?;
        let kind: [u8; 4] = header[4..8].try_into().expect("four bytes");
        if at == 0 && &kind != b"ftyp" {
            return Ok(None);
        }
        let size = match u32::from_be_bytes([header[0], header[1], header[2], header[3]]) {
            0 => end - at,
            1 => {
                stream.read_exact(&mut header[8..16])?;
                u64::from_be_bytes(header[8..16].try_into().expect("eight bytes"))
            }
            size => u64::from(size),
        };
        if &kind == b"uuid" {
            let mut uuid = [0u8; 16];
            stream.read_exact(&mut uuid)?;
            if uuid == C2PA_BOX {
                return Ok(Some(true));
            }
        }
        if size < 8 {
            break;
        }
        at += size;
    }
    // Past the loop, the first box was `ftyp` unless the file is shorter than a box header.
    Ok((end >= 8).then_some(false))
}

/// Reads the Content Credentials of an MP4 (`None`: the file carries none). Blocking.
pub fn read(stream: impl Read + Seek + Send) -> Report {
    report::read(stream)
}
