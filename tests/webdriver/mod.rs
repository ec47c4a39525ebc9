//! A minimal W3C WebDriver client for the report's browser tests: chromedriver on localhost,
//! plain HTTP/1.1 over a std TcpStream, JSON by serde_json. (fantoccini would add ~80 crates —
//! tokio, hyper, url/idna/icu — to the build for the dozen commands used here.)

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// How long `wait_for` polls before it fails. Generous: only a failing check reaches it, and a
/// loaded machine is slow: with the page's CPU throttled 120 times (the DevTools
/// Emulation.setCPUThrottlingRate), the views report took 17 s to load and a click 10 s to redraw.
const WAIT_LIMIT: Duration = Duration::from_secs(60);

/// The first of `names` found on PATH.
pub fn which(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names
        .iter()
        .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
        .find(|p| p.is_file())
}

/// Which browser the tests drive: Chromium (the default, what CI installs) or, with
/// `TRACEDIFF_BROWSER=firefox`, Firefox through geckodriver.
pub struct Browser {
    pub firefox: bool,
    pub driver: PathBuf,
    pub binary: PathBuf,
}

/// The browser and driver, or why the browser tests skip. With TRACEDIFF_REQUIRE_BROWSER=1
/// (CI), a missing browser is a failure instead.
pub fn browser() -> Option<Browser> {
    let firefox = std::env::var("TRACEDIFF_BROWSER").is_ok_and(|v| v == "firefox");
    let (found, why) = if firefox {
        (
            which(&["geckodriver"]).zip(which(&["firefox-esr", "firefox"])),
            "TRACEDIFF_BROWSER=firefox but firefox and geckodriver are not on PATH",
        )
    } else {
        (
            which(&["chromedriver"]).zip(which(&["chromium", "chromium-browser", "google-chrome"])),
            "chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)",
        )
    };
    if found.is_none() {
        if std::env::var("TRACEDIFF_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
            panic!("TRACEDIFF_REQUIRE_BROWSER=1 but {why}");
        }
        eprintln!("SKIPPED browser test: {why}");
    }
    found.map(|(driver, binary)| Browser {
        firefox,
        driver,
        binary,
    })
}

pub struct Driver {
    child: Child,
    port: u16,
    session: String,
    firefox: bool,
}

fn capabilities(browser: &Browser) -> Value {
    if browser.firefox {
        return json!({"capabilities": {"alwaysMatch": {
            "browserName": "firefox",
            "moz:firefoxOptions": {
                "binary": browser.binary,
                "args": ["-headless", "--width=1280", "--height=800"],
            },
        }}});
    }
    json!({"capabilities": {"alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {
            "binary": browser.binary,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800", "--no-first-run"],
        },
        "goog:loggingPrefs": {"browser": "ALL"},
    }}})
}

pub struct Element(String);

impl Driver {
    /// Starts the driver and a headless browser session of 1280×800.
    pub fn start(browser: &Browser) -> Driver {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(&browser.driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let mut d = Driver {
            child,
            port,
            session: String::new(),
            firefox: browser.firefox,
        };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(20), "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        let caps = capabilities(browser);
        let v = d.http("POST", "/session", Some(caps));
        d.session = v["sessionId"].as_str().expect("a session id").to_string();
        d
    }

    fn http(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .unwrap();
        // chromedriver keeps the connection open: read the head, then Content-Length bytes.
        let mut raw = Vec::new();
        let mut buf = [0u8; 65536];
        let split = loop {
            if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                break p;
            }
            let n = s.read(&mut buf).unwrap();
            assert!(n > 0, "chromedriver closed the connection mid-response");
            raw.extend_from_slice(&buf[..n]);
        };
        let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
        let length = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<usize>().ok());
        let mut body = raw[split + 4..].to_vec();
        match length {
            Some(len) => {
                while body.len() < len {
                    let n = s.read(&mut buf).unwrap();
                    assert!(n > 0, "chromedriver closed the connection mid-body");
                    body.extend_from_slice(&buf[..n]);
                }
            }
            None => {
                s.read_to_end(&mut body).unwrap();
                if head.contains("transfer-encoding: chunked") {
                    body = dechunk(&body);
                }
            }
        }
        let payload = String::from_utf8_lossy(&body);
        let v: Value = serde_json::from_str(&payload).unwrap_or_else(|e| panic!("{e}: {payload}"));
        if v["value"]["error"].is_string() {
            panic!("WebDriver {method} {path}: {}", v["value"]);
        }
        v["value"].clone()
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.http(method, &format!("/session/{}{path}", self.session), body)
    }

    pub fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    pub fn exec(&self, script: &str) -> Value {
        self.cmd("POST", "/execute/sync", Some(json!({"script": script, "args": []})))
    }

    pub fn find(&self, css: &str) -> Element {
        let v = self.cmd("POST", "/element", Some(json!({"using": "css selector", "value": css})));
        Element(
            v[ELEMENT]
                .as_str()
                .unwrap_or_else(|| panic!("no element {css}: {v}"))
                .to_string(),
        )
    }

    pub fn click(&self, e: &Element) {
        self.cmd("POST", &format!("/element/{}/click", e.0), Some(json!({})));
    }

    /// A mouse click at the centre of `e`, on whatever is drawn there (as a user's click: the
    /// element-click command refuses an element that another one covers, even its own child).
    pub fn click_at(&self, e: &Element) {
        let origin = json!({ ELEMENT: e.0 });
        let actions = json!({"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "origin": origin, "x": 0, "y": 0},
                        {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]});
        self.cmd("POST", "/actions", Some(actions));
    }

    pub fn type_into(&self, e: &Element, text: &str) {
        self.cmd(
            "POST",
            &format!("/element/{}/value", e.0),
            Some(json!({ "text": text })),
        );
    }

    /// Presses and releases a key (a WebDriver key code such as "\u{E007}", Enter) on the
    /// focused element.
    pub fn press(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]});
        self.cmd("POST", "/actions", Some(actions));
    }

    /// The browser's reload; returns once the page has loaded again, as `goto` does.
    pub fn refresh(&self) {
        self.cmd("POST", "/refresh", Some(json!({})));
    }

    pub fn back(&self) {
        self.cmd("POST", "/back", Some(json!({})));
    }

    /// Browser console entries of level SEVERE (chromedriver's log endpoint). geckodriver has no
    /// log endpoint: with Firefox the page's own `window.onerror`/`console.error` hook is the check.
    pub fn severe_logs(&self) -> Vec<String> {
        if self.firefox {
            return Vec::new();
        }
        let path = format!("/session/{}/se/log", self.session);
        let v = self.http("POST", &path, Some(json!({"type": "browser"})));
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter(|e| e["level"] == "SEVERE")
                    .map(|e| e["message"].to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Polls `script` (which returns a boolean) until it holds.
    pub fn wait_for(&self, script: &str) {
        let start = Instant::now();
        while self.exec(script) != Value::Bool(true) {
            assert!(start.elapsed() < WAIT_LIMIT, "timed out waiting for: {script}");
            std::thread::sleep(Duration::from_millis(30));
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let path = format!("/session/{}", self.session);
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.http("DELETE", &path, None)));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn dechunk(mut s: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = s.windows(2).position(|w| w == b"\r\n") {
        let size = String::from_utf8_lossy(&s[..eol]);
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        let rest = &s[eol + 2..];
        if n == 0 || rest.len() < n {
            break;
        }
        out.extend_from_slice(&rest[..n]);
        s = rest[n..].strip_prefix(b"\r\n").unwrap_or(&rest[n..]);
    }
    out
}
