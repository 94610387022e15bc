//! A tiny HTTP/1.1 server on 127.0.0.1 for tests: scripted files, Range support that can be
//! switched off, injected failures. It serves one connection at a time, answers with
//! `Connection: close`, and stops when dropped (or after 60 s at most).

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behavior {
    /// Honours `Range: bytes=a-b`.
    Normal,
    /// Answers 200 with the whole body to every request.
    IgnoreRange,
    /// Announces the full length, sends half the body and closes.
    Truncate,
    /// Answers 500 to the first `n` requests, then behaves normally.
    FailFirst(usize),
    /// Sends the headers at once, then one body byte every 50 ms (for at most 10 s).
    Trickle,
}

pub struct Server {
    pub base: String,
    stop: Arc<AtomicBool>,
    pub hits: Arc<AtomicUsize>,
    pub log: Arc<Mutex<Vec<String>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub fn serve(routes: Vec<(String, Vec<u8>)>, behavior: Behavior) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let stop = Arc::new(AtomicBool::new(false));
    let hits = Arc::new(AtomicUsize::new(0));
    let log = Arc::new(Mutex::new(Vec::new()));
    let (s, h, l) = (stop.clone(), hits.clone(), log.clone());
    let thread = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !s.load(Ordering::SeqCst) && Instant::now() < deadline {
            match listener.accept() {
                Ok((stream, _)) => {
                    let n = h.fetch_add(1, Ordering::SeqCst);
                    handle(stream, &routes, behavior, n, &l);
                }
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    Server {
        base: format!("http://127.0.0.1:{port}"),
        stop,
        hits,
        log,
        thread: Some(thread),
    }
}

fn handle(
    mut stream: TcpStream,
    routes: &[(String, Vec<u8>)],
    behavior: Behavior,
    n: usize,
    log: &Mutex<Vec<String>>,
) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 65536 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut lines = head.lines();
    let path = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("/")
        .to_string();
    let range = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("range"))
        .map(|(_, v)| v.trim().to_string());
    if let Ok(mut log) = log.lock() {
        log.push(format!("GET {path} range={range:?}"));
    }
    let respond = |stream: &mut TcpStream, status: &str, headers: &str, body: &[u8]| {
        let _ = write!(
            stream,
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n",
            body.len()
        );
        let _ = stream.write_all(body);
        let _ = stream.flush();
    };
    if let Behavior::FailFirst(k) = behavior {
        if n < k {
            respond(&mut stream, "500 Internal Server Error", "", b"oops");
            return;
        }
    }
    let Some((_, body)) = routes.iter().find(|(p, _)| *p == path) else {
        respond(&mut stream, "404 Not Found", "", b"not found");
        return;
    };
    if behavior == Behavior::Trickle {
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let started = Instant::now();
        for b in body {
            if stream
                .write_all(&[*b])
                .and_then(|()| stream.flush())
                .is_err()
                || started.elapsed() > Duration::from_secs(10)
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        return;
    }
    if behavior == Behavior::Truncate {
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(&body[..body.len() / 2]);
        let _ = stream.flush();
        return;
    }
    let total = body.len() as u64;
    let parsed = range.as_deref().and_then(|r| {
        let spec = r.strip_prefix("bytes=")?;
        let (a, b) = spec.split_once('-')?;
        if a.is_empty() {
            let n: u64 = b.parse().ok()?;
            Some((total.saturating_sub(n), total - 1))
        } else {
            let a: u64 = a.parse().ok()?;
            let b: u64 = if b.is_empty() {
                total - 1
            } else {
                b.parse().ok()?
            };
            Some((a, b.min(total - 1)))
        }
    });
    match (behavior, parsed) {
        (Behavior::IgnoreRange, _) | (_, None) => respond(&mut stream, "200 OK", "", body),
        (_, Some((a, b))) if a <= b && b < total => respond(
            &mut stream,
            "206 Partial Content",
            &format!("Content-Range: bytes {a}-{b}/{total}\r\n"),
            &body[a as usize..=b as usize],
        ),
        _ => respond(
            &mut stream,
            "416 Range Not Satisfiable",
            &format!("Content-Range: bytes */{total}\r\n"),
            b"",
        ),
    }
}
