//! A stored take read by range, one block at a time: an export holds one block of the take it
//! is reading, never the whole take, however long the take is (`Read + Seek`, for the MP4
//! demuxer).

use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;

use bytes::Bytes;

/// How much of a take is asked for at once.
pub const BLOCK: u64 = 2 * 1024 * 1024;

/// Reads `range` of the take.
pub type ReadRange = Box<dyn FnMut(Range<u64>) -> io::Result<Bytes> + Send>;

pub struct TakeReader {
    size: u64,
    block_size: u64,
    read: ReadRange,
    position: u64,
    /// The block held, and where it starts.
    block: Option<(u64, Bytes)>,
}

impl TakeReader {
    /// The take of `size` bytes whose ranges `read` reads, `block_size` bytes at a time.
    pub fn new(size: u64, block_size: u64, read: ReadRange) -> Self {
        TakeReader {
            size,
            block_size: block_size.max(1),
            read,
            position: 0,
            block: None,
        }
    }

    /// The stored object `key` of `size` bytes, read by range from `storage` (blocking on
    /// `runtime`: for a blocking task), a `BLOCK` at a time.
    pub fn stored(
        storage: std::sync::Arc<dyn crate::storage::Storage>,
        runtime: tokio::runtime::Handle,
        key: String,
        size: u64,
    ) -> Self {
        let read = move |range| {
            runtime
                .block_on(storage.read_range(&key, range))
                .map_err(io::Error::other)
        };
        TakeReader::new(size, BLOCK, Box::new(read))
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The block holding the byte at `position`, read when it is not the one held.
    fn block_at(&mut self, position: u64) -> io::Result<&(u64, Bytes)> {
        let start = position / self.block_size * self.block_size;
        if self.block.as_ref().is_none_or(|(at, _)| *at != start) {
            self.block = None;
            let end = (start + self.block_size).min(self.size);
            let bytes = (self.read)(start..end)?;
            if bytes.len() as u64 != end - start {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the take is shorter than its size",
                ));
            }
            self.block = Some((start, bytes));
        }
        Ok(self.block.as_ref().expect("read above"))
    }
}

impl Read for TakeReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.position >= self.size || buf.is_empty() {
            return Ok(0);
        }
        let position = self.position;
        let (start, block) = self.block_at(position)?;
        let from = (position - start) as usize;
        let count = buf.len().min(block.len() - from);
        buf[..count].copy_from_slice(&block[from..from + count]);
        self.position += count as u64;
        Ok(count)
    }
}

impl Seek for TakeReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let position = match to {
            SeekFrom::Start(at) => Some(at),
            SeekFrom::End(by) => self.size.checked_add_signed(by),
            SeekFrom::Current(by) => self.position.checked_add_signed(by),
        };
        self.position = position.ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "seek before the take's start")
        })?;
        Ok(self.position)
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// `bytes` read `block` bytes at a time, each range asked for noted in `asked`.
    pub fn in_memory(bytes: Bytes, block: u64, asked: Arc<Mutex<Vec<Range<u64>>>>) -> TakeReader {
        let size = bytes.len() as u64;
        TakeReader::new(
            size,
            block,
            Box::new(move |range| {
                asked.lock().unwrap().push(range.clone());
                Ok(bytes.slice(range.start as usize..range.end as usize))
            }),
        )
    }

    #[test]
    fn reads_and_seeks_across_blocks_asking_a_block_at_a_time() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let asked = Arc::default();
        let mut reader = in_memory(Bytes::from(data.clone()), 64, Arc::clone(&asked));
        let mut all = Vec::new();
        reader.read_to_end(&mut all).unwrap();
        assert_eq!(all, data);
        reader.seek(SeekFrom::Start(990)).unwrap();
        let mut tail = [0u8; 20];
        assert_eq!(reader.read(&mut tail).unwrap(), 10, "the take ends at 1000");
        assert_eq!(&tail[..10], &data[990..]);
        reader.seek(SeekFrom::End(-500)).unwrap();
        let mut middle = [0u8; 100];
        reader.read_exact(&mut middle).unwrap();
        assert_eq!(&middle[..], &data[500..600]);
        assert!(reader.seek(SeekFrom::Current(-700)).is_err());
        let asked = asked.lock().unwrap();
        assert!(asked.iter().all(|r| r.end - r.start <= 64), "{asked:?}");
        assert_eq!(
            asked[..16].len(),
            16,
            "the first pass reads each block once"
        );
        assert_eq!(asked[15], 960..1000);
    }

    #[test]
    fn a_take_shorter_than_its_size_is_an_error_not_garbage() {
        let mut reader = TakeReader::new(100, 64, Box::new(|_| Ok(Bytes::from_static(b"abc"))));
        let mut buf = [0u8; 10];
        assert_eq!(
            reader.read(&mut buf).unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
    }
}
