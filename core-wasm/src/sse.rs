//! An incremental reader of the Server-Sent Events format (the HTML standard's rules for
//! lines, `event`, `data`, `id` and comments), fed the body piece by piece as it arrives.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event` field; `message` when the server gave none.
    pub name: String,
    pub data: String,
    /// The last event id seen so far on this stream (sent back as `Last-Event-ID`).
    pub id: Option<String>,
}

#[derive(Debug, Default)]
pub struct Reader {
    /// Text of an unfinished line.
    partial: String,
    /// Whether the last piece ended with a CR, so a LF starting the next one is not a new line.
    after_cr: bool,
    name: String,
    data: Option<String>,
    last_id: Option<String>,
    /// The reconnection time the server last asked for, in milliseconds (`retry`).
    retry_ms: Option<u32>,
}

impl Reader {
    /// The id to resume after.
    pub fn last_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The reconnection time the server asked for, if it did.
    pub fn retry_ms(&self) -> Option<u32> {
        self.retry_ms
    }

    /// Reads one piece of the body and returns the events it completed.
    pub fn push(&mut self, text: &str) -> Vec<Event> {
        let mut events = Vec::new();
        let mut rest = text;
        if self.after_cr {
            rest = rest.strip_prefix('\n').unwrap_or(rest);
            self.after_cr = false;
        }
        while let Some(at) = rest.find(['\r', '\n']) {
            self.partial.push_str(&rest[..at]);
            let line = std::mem::take(&mut self.partial);
            if let Some(event) = self.line(&line) {
                events.push(event);
            }
            let ending = &rest[at..];
            rest = match ending.strip_prefix("\r\n") {
                Some(after) => after,
                None => {
                    self.after_cr = ending == "\r";
                    &ending[1..]
                }
            };
        }
        self.partial.push_str(rest);
        events
    }

    fn line(&mut self, line: &str) -> Option<Event> {
        if line.is_empty() {
            let data = self.data.take()?;
            let name = std::mem::take(&mut self.name);
            return Some(Event {
                name: if name.is_empty() {
                    "message".into()
                } else {
                    name
                },
                data,
                id: self.last_id.clone(),
            });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => self.name = value.to_owned(),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            // Only ASCII digits count; anything else is ignored, as the standard says.
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry_ms = Some(value.parse().unwrap_or(u32::MAX));
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_events_split_anywhere() {
        let body = ": hello\n\nid: 7\nevent: job\ndata: {\"a\":\ndata: 1}\n\nid: 8\nevent: removed\ndata: x\r\n\r\n";
        for split in 0..body.len() {
            let mut reader = Reader::default();
            let mut events = reader.push(&body[..split]);
            events.extend(reader.push(&body[split..]));
            assert_eq!(events.len(), 2, "split at {split}");
            assert_eq!(events[0].name, "job");
            assert_eq!(events[0].data, "{\"a\":\n1}");
            assert_eq!(events[0].id.as_deref(), Some("7"));
            assert_eq!(events[1].name, "removed");
            assert_eq!(reader.last_id(), Some("8"));
        }
    }

    #[test]
    fn comments_and_fieldless_blocks_make_no_event() {
        let mut reader = Reader::default();
        assert!(reader.push(":\n\n: keep-alive\n\n").is_empty());
        let events = reader.push("data\n\n");
        assert_eq!(events[0].name, "message");
        assert_eq!(events[0].data, "");
    }

    #[test]
    fn retry_takes_digits_only() {
        let mut reader = Reader::default();
        assert!(reader.push("retry: 1500\n\n").is_empty());
        assert_eq!(reader.retry_ms(), Some(1500));
        reader.push("retry: 2s\nretry: -1\nretry:\n\n");
        assert_eq!(reader.retry_ms(), Some(1500), "not digits: ignored");
        reader.push("retry: 99999999999\n\n");
        assert_eq!(reader.retry_ms(), Some(u32::MAX));
    }

    #[test]
    fn a_lone_cr_ends_a_line() {
        let mut reader = Reader::default();
        let mut events = reader.push("data: a\r");
        events.extend(reader.push("\ndata: b\r\r"));
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "a\nb");
    }
}
