//! A ZIP archive written as it is sent: every entry stored (videos do not compress), its CRC-32
//! and sizes in a data descriptor after its bytes, then the central directory. Each file is read
//! in 1 MiB ranges and at most two chunks wait to be sent, so a download of any size holds a few
//! MiB of memory. The archive's length is known before the first byte (stored entries), so
//! browsers show progress. Archives stay under 4 GiB (no ZIP64).

use std::sync::Arc;

use bytes::{BufMut, Bytes, BytesMut};
use futures_util::{stream, Stream};
use tokio::sync::mpsc;

use crate::storage::Storage;

/// Read from storage at a time.
const CHUNK: u64 = 1024 * 1024;
/// Chunks waiting to be sent.
const QUEUED: usize = 2;
/// The largest archive: the classic format's 32-bit sizes and offsets.
pub const MAX_BYTES: u64 = u32::MAX as u64;

const LOCAL_HEADER: u64 = 30;
const DESCRIPTOR: u64 = 16;
const CENTRAL_HEADER: u64 = 46;
const END: u64 = 22;
/// Bit 3 (sizes and CRC in a data descriptor) and bit 11 (UTF-8 names).
const FLAGS: u16 = 0x0808;

/// One file of the archive.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its name in the archive.
    pub name: String,
    /// Where its bytes are.
    pub source: Source,
    pub size: u64,
    /// Unix seconds.
    pub modified: i64,
}

/// Where an entry's bytes come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// The object at this storage key, read in ranges as it is sent.
    Stored(String),
    /// Bytes made for the archive (a few KB: a timeline, say).
    Made(Bytes),
}

impl Entry {
    /// An entry of bytes made for the archive.
    pub fn made(name: String, bytes: Bytes, modified: i64) -> Entry {
        Entry {
            name,
            size: bytes.len() as u64,
            source: Source::Made(bytes),
            modified,
        }
    }
}

/// A file name as an archive holds it: `:` (in every job id) is not allowed in Windows file
/// names.
pub fn portable(name: &str) -> String {
    name.replace(':', "_")
}

/// The archive's length in bytes.
pub fn length(entries: &[Entry]) -> u64 {
    entries
        .iter()
        .map(|e| LOCAL_HEADER + DESCRIPTOR + CENTRAL_HEADER + 2 * e.name.len() as u64 + e.size)
        .sum::<u64>()
        + END
}

/// MS-DOS time and date of a Unix moment (UTC; 1980 at the earliest).
fn dos_time(unix: i64) -> (u16, u16) {
    let at = time::OffsetDateTime::from_unix_timestamp(unix)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
        .max(time::macros::datetime!(1980-01-01 0:00 UTC));
    let time =
        (u16::from(at.hour()) << 11) | (u16::from(at.minute()) << 5) | u16::from(at.second() / 2);
    let year = u16::try_from(at.year() - 1980).unwrap_or(0).min(127);
    let date = (year << 9) | (u16::from(u8::from(at.month())) << 5) | u16::from(at.day());
    (time, date)
}

/// What the central directory needs of an entry once it is written.
struct Written {
    crc: u32,
    offset: u32,
}

fn local_header(entry: &Entry) -> Bytes {
    let (time, date) = dos_time(entry.modified);
    let mut b = BytesMut::with_capacity(LOCAL_HEADER as usize + entry.name.len());
    b.put_u32_le(0x0403_4b50);
    b.put_u16_le(20);
    b.put_u16_le(FLAGS);
    b.put_u16_le(0); // stored
    b.put_u16_le(time);
    b.put_u16_le(date);
    b.put_u32_le(0); // CRC, sizes: in the descriptor
    b.put_u32_le(0);
    b.put_u32_le(0);
    b.put_u16_le(entry.name.len() as u16);
    b.put_u16_le(0);
    b.put_slice(entry.name.as_bytes());
    b.freeze()
}

fn descriptor(crc: u32, size: u32) -> Bytes {
    let mut b = BytesMut::with_capacity(DESCRIPTOR as usize);
    b.put_u32_le(0x0807_4b50);
    b.put_u32_le(crc);
    b.put_u32_le(size);
    b.put_u32_le(size);
    b.freeze()
}

fn central_directory(entries: &[Entry], written: &[Written], start: u32) -> Bytes {
    let mut b = BytesMut::new();
    for (entry, w) in entries.iter().zip(written) {
        let (time, date) = dos_time(entry.modified);
        b.put_u32_le(0x0201_4b50);
        b.put_u16_le(0x0314); // made by Unix, spec 2.0
        b.put_u16_le(20);
        b.put_u16_le(FLAGS);
        b.put_u16_le(0);
        b.put_u16_le(time);
        b.put_u16_le(date);
        b.put_u32_le(w.crc);
        b.put_u32_le(entry.size as u32);
        b.put_u32_le(entry.size as u32);
        b.put_u16_le(entry.name.len() as u16);
        b.put_u16_le(0);
        b.put_u16_le(0);
        b.put_u16_le(0);
        b.put_u16_le(0);
        b.put_u32_le(0o100_644 << 16); // a regular file, rw-r--r--
        b.put_u32_le(w.offset);
        b.put_slice(entry.name.as_bytes());
    }
    let size = b.len() as u32;
    b.put_u32_le(0x0605_4b50);
    b.put_u16_le(0);
    b.put_u16_le(0);
    b.put_u16_le(entries.len() as u16);
    b.put_u16_le(entries.len() as u16);
    b.put_u32_le(size);
    b.put_u32_le(start);
    b.put_u16_le(0);
    b.freeze()
}

/// Sends the archive of `entries` (at most `MAX_BYTES` long and 65,535 entries: the caller
/// checks) as a stream of chunks. A read that fails ends the stream with its error, which
/// breaks the download off rather than sending a damaged archive as whole.
pub fn archive(
    storage: Arc<dyn Storage>,
    entries: Vec<Entry>,
) -> impl Stream<Item = std::io::Result<Bytes>> {
    let (sender, receiver) = mpsc::channel(QUEUED);
    tokio::spawn(async move {
        let mut offset: u64 = 0;
        let mut written = Vec::with_capacity(entries.len());
        for entry in &entries {
            let header = local_header(entry);
            let start = offset;
            offset += header.len() as u64;
            if sender.send(Ok(header)).await.is_err() {
                return;
            }
            let mut crc = crc32fast::Hasher::new();
            let mut at = 0;
            while at < entry.size {
                let end = (at + CHUNK).min(entry.size);
                let read = match &entry.source {
                    Source::Stored(key) => storage.read_range(key, at..end).await,
                    Source::Made(bytes) => Ok(bytes.slice(at as usize..end as usize)),
                };
                let chunk = match read {
                    Ok(chunk) => chunk,
                    Err(e) => {
                        tracing::error!(entry = %entry.name, error = %e, "a ZIP download broke off");
                        let _ = sender.send(Err(std::io::Error::other(e))).await;
                        return;
                    }
                };
                crc.update(&chunk);
                at = end;
                if sender.send(Ok(chunk)).await.is_err() {
                    return;
                }
            }
            let crc = crc.finalize();
            offset += entry.size;
            let tail = descriptor(crc, entry.size as u32);
            offset += tail.len() as u64;
            if sender.send(Ok(tail)).await.is_err() {
                return;
            }
            written.push(Written {
                crc,
                offset: start as u32,
            });
        }
        let _ = sender
            .send(Ok(central_directory(&entries, &written, offset as u32)))
            .await;
    });
    stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|chunk| (chunk, receiver))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dos_times_count_from_1980() {
        // 2026-11-25 14:30:08 UTC.
        let (time, date) = dos_time(1_795_617_008);
        assert_eq!(time, (14 << 11) | (30 << 5) | 4);
        assert_eq!(date, (46 << 9) | (11 << 5) | 25);
        assert_eq!(dos_time(0), (0, (1 << 5) | 1), "before 1980 is 1980");
    }
}
