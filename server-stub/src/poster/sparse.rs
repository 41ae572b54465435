//! A video read in pieces: the MP4 boxes that describe it and the bytes of its first frame,
//! fetched by range, so a poster of a 500 MB video costs a few hundred kilobytes of memory and
//! of transfer from a bucket, not the whole file.

use std::io::{Read, Seek, SeekFrom};

use bytes::Bytes;

use super::PosterError;
use crate::storage::Storage;

/// The most top-level boxes walked, and the most bytes fetched for one poster in all (boxes
/// other than `mdat` and the first frame): a crafted file cannot make a poster costly.
const MAX_BOXES: usize = 64;
const MAX_FETCHED_BYTES: u64 = 32 * 1024 * 1024;

/// The fetched pieces of one object, readable where fetched (elsewhere a read fails).
#[derive(Clone)]
pub struct Sparse {
    size: u64,
    pieces: Vec<(u64, Bytes)>,
    position: u64,
}

/// The bytes fetched so far.
fn fetched(pieces: &[(u64, Bytes)]) -> u64 {
    pieces.iter().map(|(_, b)| b.len() as u64).sum()
}

impl Sparse {
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The top-level boxes of `key`: every one read whole but `mdat` (its header only).
    pub async fn boxes(storage: &dyn Storage, key: &str, size: u64) -> Result<Sparse, PosterError> {
        let mut sparse = Sparse {
            size,
            pieces: Vec::new(),
            position: 0,
        };
        let mut at = 0;
        for _ in 0..MAX_BOXES {
            if at + 8 > size {
                break;
            }
            let header = storage.read_range(key, at..(at + 16).min(size)).await?;
            let (length, name) = box_header(&header, size - at)?;
            if &name == b"mdat" {
                sparse.pieces.push((at, header));
            } else if fetched(&sparse.pieces) + length > MAX_FETCHED_BYTES {
                return Err(PosterError::Unsupported(format!("a {length}-byte box")));
            } else {
                sparse
                    .pieces
                    .push((at, storage.read_range(key, at..at + length).await?));
            }
            at += length;
        }
        Ok(sparse)
    }

    /// Adds the bytes `start..start + length` of `key`.
    pub async fn fetch(
        &mut self,
        storage: &dyn Storage,
        key: &str,
        start: u64,
        length: u64,
    ) -> Result<(), PosterError> {
        if fetched(&self.pieces) + length > MAX_FETCHED_BYTES || start + length > self.size {
            return Err(PosterError::Unsupported(format!(
                "a first frame of {length} bytes at {start}"
            )));
        }
        let bytes = storage.read_range(key, start..start + length).await?;
        self.pieces.push((start, bytes));
        Ok(())
    }
}

/// A box's length and name from its header (32-bit size, or 1 and a 64-bit size, or 0 for
/// "to the end"); `left` is what the file has from the box on.
fn box_header(header: &[u8], left: u64) -> Result<(u64, [u8; 4]), PosterError> {
    let bad = || PosterError::Unsupported("a damaged box header".into());
    let short = u32::from_be_bytes(
        header
            .get(0..4)
            .ok_or_else(bad)?
            .try_into()
            .map_err(|_| bad())?,
    );
    let name: [u8; 4] = header
        .get(4..8)
        .ok_or_else(bad)?
        .try_into()
        .map_err(|_| bad())?;
    let length = match short {
        0 => left,
        1 => u64::from_be_bytes(
            header
                .get(8..16)
                .ok_or_else(bad)?
                .try_into()
                .map_err(|_| bad())?,
        ),
        n => u64::from(n),
    };
    if length < 8 || length > left {
        return Err(bad());
    }
    Ok((length, name))
}

impl Read for Sparse {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.position >= self.size || buf.is_empty() {
            return Ok(0);
        }
        let at = self.position;
        let piece = self
            .pieces
            .iter()
            .find(|(start, bytes)| *start <= at && at < start + bytes.len() as u64);
        let Some((start, bytes)) = piece else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("byte {at} was not fetched"),
            ));
        };
        let from = usize::try_from(at - start).unwrap_or(usize::MAX);
        let count = buf.len().min(bytes.len() - from);
        buf[..count].copy_from_slice(&bytes[from..from + count]);
        self.position += count as u64;
        Ok(count)
    }
}

impl Seek for Sparse {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let position = match to {
            SeekFrom::Start(at) => Some(at),
            SeekFrom::End(delta) => self.size.checked_add_signed(delta),
            SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        };
        self.position = position.ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start")
        })?;
        Ok(self.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_headers_of_every_size_form() {
        let mut head = vec![0, 0, 0, 24];
        head.extend(b"ftyp");
        assert_eq!(box_header(&head, 100).unwrap(), (24, *b"ftyp"));
        let mut large = vec![0, 0, 0, 1];
        large.extend(b"mdat");
        large.extend(5000u64.to_be_bytes());
        assert_eq!(box_header(&large, 6000).unwrap(), (5000, *b"mdat"));
        let mut rest = vec![0, 0, 0, 0];
        rest.extend(b"mdat");
        assert_eq!(box_header(&rest, 77).unwrap(), (77, *b"mdat"));
        assert!(box_header(&head, 10).is_err(), "longer than the file");
        assert!(box_header(&[0, 0, 0, 4, b'x', b'x', b'x', b'x'], 10).is_err());
        assert!(box_header(&[0, 0], 10).is_err());
    }

    #[test]
    fn reads_only_what_was_fetched() {
        let mut sparse = Sparse {
            size: 100,
            pieces: vec![(10, Bytes::from_static(b"abcdef"))],
            position: 0,
        };
        sparse.seek(SeekFrom::Start(12)).unwrap();
        let mut buf = [0; 10];
        assert_eq!(sparse.read(&mut buf).unwrap(), 4);
        assert_eq!(&buf[..4], b"cdef");
        assert!(sparse.read(&mut buf).is_err(), "byte 16 was never fetched");
        sparse.seek(SeekFrom::End(0)).unwrap();
        assert_eq!(sparse.read(&mut buf).unwrap(), 0);
        assert!(sparse.seek(SeekFrom::Current(-200)).is_err());
    }
}
