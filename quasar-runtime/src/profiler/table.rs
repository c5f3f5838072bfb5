//! A [`Profile`] as text: the kernel table, then the transfers per array and why.

use super::{ArrayRow, Profile};
use std::fmt;
use std::time::Duration;

/// `2.0 MiB`, `512 B`.
pub fn human_bytes(b: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < U.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", U[u])
    }
}

/// Writes `cells` under `header` in aligned columns (`left[k]`: column `k` is left-aligned).
fn table(
    f: &mut fmt::Formatter<'_>,
    header: &[&str],
    left: &[bool],
    cells: &[Vec<String>],
) -> fmt::Result {
    let mut w: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for c in cells {
        for (k, x) in c.iter().enumerate() {
            w[k] = w[k].max(x.chars().count());
        }
    }
    let line = |f: &mut fmt::Formatter<'_>, c: &[String]| -> fmt::Result {
        let parts: Vec<String> =
            c.iter()
                .enumerate()
                .map(|(k, x)| {
                    if left[k] {
                        format!("{x:<w$}", w = w[k])
                    } else {
                        format!("{x:>w$}", w = w[k])
                    }
                })
                .collect();
        writeln!(f, "{}", parts.join("  ").trim_end())
    };
    line(f, &header.iter().map(|h| h.to_string()).collect::<Vec<_>>())?;
    writeln!(f, "{}", "-".repeat(w.iter().sum::<usize>() + 2 * (w.len() - 1)))?;
    for c in cells {
        line(f, c)?;
    }
    Ok(())
}

fn why(a: &ArrayRow) -> String {
    let parts: Vec<String> = a
        .reasons
        .iter()
        .map(|(reason, to_device, n, bytes)| {
            let arrow = if *to_device { "->" } else { "<-" };
            format!("{reason} {arrow} {n}x {}", human_bytes(*bytes))
        })
        .collect();
    parts.join("; ")
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cells: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                let avg = if r.launches > 0 { r.time / r.launches as u32 } else { Duration::ZERO };
                vec![
                    r.kernel.clone(),
                    r.device.clone(),
                    r.launches.to_string(),
                    format!("{:.3?}", r.time),
                    format!("{avg:.3?}"),
                    human_bytes(r.bytes_to_device),
                    human_bytes(r.bytes_to_host),
                ]
            })
            .collect();
        table(
            f,
            &["kernel", "device", "launches", "time", "avg", "to device", "to host"],
            &[true, true, false, false, false, false, false],
            &cells,
        )?;
        if self.arrays.is_empty() {
            return Ok(());
        }
        writeln!(f)?;
        let cells: Vec<Vec<String>> = self
            .arrays
            .iter()
            .map(|a| {
                vec![
                    format!("#{} {}", a.id, a.label),
                    format!("{} {}", human_bytes(a.bytes as u64), a.elem),
                    a.device.clone(),
                    human_bytes(a.bytes_to_device),
                    human_bytes(a.bytes_to_host),
                    why(a),
                ]
            })
            .collect();
        table(
            f,
            &["array", "size", "device", "to device", "to host", "why (-> to device, <- to host)"],
            &[true, true, true, false, false, true],
            &cells,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ProfileRow, TransferReason};
    use super::*;

    #[test]
    fn kernels_and_arrays_print_as_aligned_tables() {
        let p = Profile {
            rows: vec![ProfileRow {
                kernel: "blur".into(),
                device: "sim GPU".into(),
                launches: 2,
                time: Duration::from_micros(400),
                bytes_to_device: 4096,
                bytes_to_host: 2 << 20,
            }],
            arrays: vec![ArrayRow {
                id: 7,
                label: "`x` of blur".into(),
                elem: "f32".into(),
                bytes: 4096,
                device: "sim GPU".into(),
                bytes_to_device: 4096,
                bytes_to_host: 2 << 20,
                reasons: vec![
                    (TransferReason::FirstUse, true, 1, 4096),
                    (TransferReason::HostRead, false, 512, 2 << 20),
                ],
            }],
        };
        let text = p.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3 + 1 + 3, "{text}");
        assert!(lines[0].starts_with("kernel  device   launches"), "{text}");
        assert!(lines[2].contains("blur") && lines[2].contains("2.0 MiB"), "{text}");
        assert!(lines[4].starts_with("array"), "{text}");
        assert!(lines[6].contains("first use -> 1x 4.0 KiB; host read <- 512x 2.0 MiB"), "{text}");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }
}
