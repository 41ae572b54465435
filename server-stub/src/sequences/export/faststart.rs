//! The export made ready to play while it downloads: its index (`moov`) moved before the media
//! (`mdat`), and the media laid out in time order, a chunk (about a second) of each track in
//! turn, so that a browser or a phone starts at once and never reaches for the sound at the
//! file's far end. The `mp4` crate writes the index last, and each track's chunks as they are
//! written: all the pictures, then all the sound.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use mp4::{MoovBox, Mp4Box, ReadBox, WriteBox};

/// One chunk of one track: where it is now, how long it is, and when it starts.
struct Chunk {
    track: usize,
    /// Its index among its track's chunks.
    index: usize,
    offset: u64,
    size: u64,
    /// Its first sample's start, in seconds.
    start: f64,
}

/// A top-level box: its type, where it starts and its whole length.
struct TopBox {
    name: [u8; 4],
    start: u64,
    size: u64,
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

fn mp4_error(e: mp4::Error) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

/// The top-level boxes of the file of `length` bytes.
fn top_boxes(file: &mut (impl Read + Seek), length: u64) -> io::Result<Vec<TopBox>> {
    let mut boxes = Vec::new();
    let mut start = 0;
    while start < length {
        file.seek(SeekFrom::Start(start))?;
        let mut head = [0u8; 8];
        file.read_exact(&mut head)?;
        let name = [head[4], head[5], head[6], head[7]];
        let (size, header) = match u32::from_be_bytes([head[0], head[1], head[2], head[3]]) {
            0 => (length - start, 8),
            1 => {
                let mut large = [0u8; 8];
                file.read_exact(&mut large)?;
                (u64::from_be_bytes(large), 16)
            }
            size => (u64::from(size), 8),
        };
        if size < header || start + size > length {
            return Err(invalid("a box runs past the end of the file"));
        }
        boxes.push(TopBox { name, start, size });
        start += size;
    }
    Ok(boxes)
}

/// What a track's sample table says of its chunks (the `mp4` crate does not name its boxes'
/// types outside itself, so they are read into this).
struct Table {
    offsets: Vec<u64>,
    /// Each sample's size and start (in the track's clock).
    sizes: Vec<u64>,
    starts: Vec<u64>,
    /// `stsc`: from which chunk (counted from 1) how many samples each chunk holds.
    runs: Vec<(u32, u32)>,
    timescale: u32,
}

/// The chunks of track `track`, as its sample table says.
fn chunks_of(track: usize, table: &Table) -> Vec<Chunk> {
    let mut chunks = Vec::with_capacity(table.offsets.len());
    let mut sample = 0usize;
    for (index, &offset) in table.offsets.iter().enumerate() {
        let number = index as u32 + 1;
        let per_chunk = table
            .runs
            .iter()
            .rev()
            .find(|(first, _)| *first <= number)
            .map_or(0, |(_, count)| *count) as usize;
        let end = (sample + per_chunk).min(table.sizes.len());
        let size = table
            .sizes
            .get(sample..end)
            .unwrap_or_default()
            .iter()
            .sum();
        let start = table.starts.get(sample).copied().unwrap_or(u64::MAX) as f64
            / f64::from(table.timescale.max(1));
        chunks.push(Chunk {
            track,
            index,
            offset,
            size,
            start,
        });
        sample += per_chunk;
    }
    chunks
}

/// Rewrites the MP4 at `path` with its index first and its tracks' chunks in time order (an
/// earlier start first; at the same start, the first track first). The samples, their times
/// and every other box stay as they were.
pub fn faststart(path: &Path) -> io::Result<()> {
    let mut file = BufReader::new(File::open(path)?);
    let length = file.get_ref().metadata()?.len();
    let boxes = top_boxes(&mut file, length)?;
    let find = |name: &[u8; 4]| boxes.iter().find(|b| &b.name == name);
    let (Some(ftyp), Some(moov), Some(mdat)) = (find(b"ftyp"), find(b"moov"), find(b"mdat")) else {
        return Err(invalid("not an MP4 with ftyp, moov and mdat"));
    };
    let mut ftyp_bytes = vec![0u8; ftyp.size as usize];
    file.seek(SeekFrom::Start(ftyp.start))?;
    file.read_exact(&mut ftyp_bytes)?;
    file.seek(SeekFrom::Start(moov.start + 8))?;
    let mut index = MoovBox::read_box(&mut file, moov.size).map_err(mp4_error)?;

    let mut chunks = Vec::new();
    for (track, trak) in index.traks.iter().enumerate() {
        let stbl = &trak.mdia.minf.stbl;
        let offsets: Vec<u64> = match (&stbl.stco, &stbl.co64) {
            (Some(stco), _) => stco.entries.iter().map(|&o| u64::from(o)).collect(),
            (None, Some(co64)) => co64.entries.clone(),
            (None, None) => return Err(invalid("a track without chunk offsets")),
        };
        let sizes = match stbl.stsz.sample_size {
            0 => stbl
                .stsz
                .sample_sizes
                .iter()
                .map(|&s| u64::from(s))
                .collect(),
            all => vec![u64::from(all); stbl.stsz.sample_count as usize],
        };
        let mut starts = Vec::with_capacity(sizes.len());
        let mut at = 0u64;
        for entry in &stbl.stts.entries {
            for _ in 0..entry.sample_count {
                starts.push(at);
                at += u64::from(entry.sample_delta);
            }
        }
        let table = Table {
            offsets,
            sizes,
            starts,
            runs: stbl
                .stsc
                .entries
                .iter()
                .map(|e| (e.first_chunk, e.samples_per_chunk))
                .collect(),
            timescale: trak.mdia.mdhd.timescale,
        };
        chunks.extend(chunks_of(track, &table));
    }
    chunks.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.track.cmp(&b.track)));
    let payload: u64 = chunks.iter().map(|c| c.size).sum();
    let mdat_header = if payload + 8 > u64::from(u32::MAX) {
        16
    } else {
        8
    };

    // The index's size depends on whether offsets take 32 or 64 bits, not on their values.
    let ends_past_32_bits = |index: &MoovBox| {
        ftyp.size + index.box_size() + mdat_header + payload > u64::from(u32::MAX)
    };
    if ends_past_32_bits(&index) {
        for trak in &mut index.traks {
            let stbl = &mut trak.mdia.minf.stbl;
            if let Some(stco) = stbl.stco.take() {
                let co64 = stbl.co64.insert(Default::default());
                co64.entries = stco.entries.iter().map(|&o| u64::from(o)).collect();
            }
        }
    }
    let mut at = ftyp.size + index.box_size() + mdat_header;
    for chunk in &chunks {
        let stbl = &mut index.traks[chunk.track].mdia.minf.stbl;
        match (&mut stbl.stco, &mut stbl.co64) {
            (Some(stco), _) => {
                stco.entries[chunk.index] =
                    u32::try_from(at).map_err(|_| invalid("an offset past 4 GiB"))?
            }
            (None, Some(co64)) => co64.entries[chunk.index] = at,
            (None, None) => return Err(invalid("a track without chunk offsets")),
        }
        at += chunk.size;
    }
    if chunks
        .iter()
        .any(|c| c.offset + c.size > mdat.start + mdat.size)
    {
        return Err(invalid("a chunk runs past the media"));
    }

    let temporary = path.with_extension("faststart");
    let mut out = BufWriter::new(File::create(&temporary)?);
    out.write_all(&ftyp_bytes)?;
    index.write_box(&mut out).map_err(mp4_error)?;
    if mdat_header == 16 {
        out.write_all(&1u32.to_be_bytes())?;
        out.write_all(b"mdat")?;
        out.write_all(&(payload + 16).to_be_bytes())?;
    } else {
        out.write_all(&((payload + 8) as u32).to_be_bytes())?;
        out.write_all(b"mdat")?;
    }
    let mut buffer = Vec::new();
    for chunk in &chunks {
        buffer.resize(chunk.size as usize, 0);
        file.seek(SeekFrom::Start(chunk.offset))?;
        file.read_exact(&mut buffer)?;
        out.write_all(&buffer)?;
    }
    let out = out.into_inner().map_err(|e| e.into_error())?;
    out.sync_all()?;
    drop(file);
    std::fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use mp4::{
        AacConfig, AudioObjectType, AvcConfig, ChannelConfig, MediaConfig, Mp4Config, Mp4Sample,
        Mp4Writer, SampleFreqIndex, TrackConfig, TrackType,
    };

    /// An MP4 as the export writes one: 3 s of pictures at 24 fps, then 3 s of sound.
    fn written(path: &Path) -> (Vec<Bytes>, Vec<Bytes>) {
        let config = Mp4Config {
            major_brand: str::parse("isom").unwrap(),
            minor_version: 512,
            compatible_brands: vec![str::parse("isom").unwrap()],
            timescale: 7_056_000,
        };
        let mut writer = Mp4Writer::write_start(File::create(path).unwrap(), &config).unwrap();
        writer
            .add_track(&TrackConfig {
                track_type: TrackType::Video,
                timescale: 24,
                language: "und".into(),
                media_conf: MediaConfig::AvcConfig(AvcConfig {
                    width: 64,
                    height: 64,
                    seq_param_set: vec![0x67, 1, 2, 3],
                    pic_param_set: vec![0x68, 4],
                }),
            })
            .unwrap();
        let pictures: Vec<Bytes> = (0..72u32)
            .map(|i| Bytes::from(vec![(i % 251) as u8; 100 + i as usize]))
            .collect();
        for (i, bytes) in pictures.iter().enumerate() {
            let sample = Mp4Sample {
                start_time: i as u64,
                duration: 1,
                rendering_offset: 0,
                is_sync: i % 24 == 0,
                bytes: bytes.clone(),
            };
            writer.write_sample(1, &sample).unwrap();
        }
        writer
            .add_track(&TrackConfig {
                track_type: TrackType::Audio,
                timescale: 48_000,
                language: "und".into(),
                media_conf: MediaConfig::AacConfig(AacConfig {
                    bitrate: 128_000,
                    profile: AudioObjectType::AacLowComplexity,
                    freq_index: SampleFreqIndex::Freq48000,
                    chan_conf: ChannelConfig::Stereo,
                }),
            })
            .unwrap();
        let frames: Vec<Bytes> = (0..141u32)
            .map(|i| Bytes::from(vec![(200 - i % 200) as u8; 50 + (i % 7) as usize]))
            .collect();
        for (i, bytes) in frames.iter().enumerate() {
            let sample = Mp4Sample {
                start_time: i as u64 * 1024,
                duration: 1024,
                rendering_offset: 0,
                is_sync: true,
                bytes: bytes.clone(),
            };
            writer.write_sample(2, &sample).unwrap();
        }
        writer.write_end().unwrap();
        (pictures, frames)
    }

    fn samples(reader: &mut mp4::Mp4Reader<BufReader<File>>, track: u32) -> Vec<Bytes> {
        let count = reader.sample_count(track).unwrap();
        (1..=count)
            .map(|n| reader.read_sample(track, n).unwrap().unwrap().bytes)
            .collect()
    }

    /// Fails on an export written index last, sound after all the pictures.
    #[test]
    fn the_index_comes_first_and_the_tracks_take_turns_samples_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.mp4");
        let (pictures, frames) = written(&path);
        faststart(&path).unwrap();

        let mut file = BufReader::new(File::open(&path).unwrap());
        let length = file.get_ref().metadata().unwrap().len();
        let names: Vec<[u8; 4]> = top_boxes(&mut file, length)
            .unwrap()
            .iter()
            .map(|b| b.name)
            .collect();
        assert_eq!(names, [*b"ftyp", *b"moov", *b"mdat"]);

        file.seek(SeekFrom::Start(0)).unwrap();
        let mut reader = mp4::Mp4Reader::read_header(file, length).unwrap();
        assert_eq!(samples(&mut reader, 1), pictures, "the pictures as written");
        assert_eq!(samples(&mut reader, 2), frames, "the sound as written");
        // Chunks of a second: picture and sound chunks alternate through the media.
        let offsets = |track: u32| -> Vec<u64> {
            let stbl = &reader.tracks()[&track].trak.mdia.minf.stbl;
            stbl.stco
                .as_ref()
                .unwrap()
                .entries
                .iter()
                .map(|&o| u64::from(o))
                .collect()
        };
        let (video, audio) = (offsets(1), offsets(2));
        assert_eq!(video.len(), 3);
        assert!(audio.len() >= 3);
        assert!(video[0] < audio[0] && audio[0] < video[1] && video[1] < audio[1]);
        assert!(video[2] < *audio.last().unwrap());
    }
}
