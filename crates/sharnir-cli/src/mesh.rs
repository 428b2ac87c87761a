//! Meshes for the animation pages: STL (binary and ASCII) and Wavefront OBJ
//! (vertices and faces; polygons split into fans) read into one flat list
//! of triangle corners that the page draws as it is, and COLLADA passed to
//! the page's loader as text.

use base64::Engine as _;
use std::path::Path;

/// The triangles of the mesh file at `path`, nine coordinates each, or why
/// the file cannot be drawn.
pub(crate) fn read(path: &Path) -> Result<Vec<f32>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it ({e})"))?;
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let triangles = match extension.as_str() {
        "stl" => stl(&bytes)?,
        "obj" => obj(&String::from_utf8_lossy(&bytes))?,
        _ => {
            return Err(format!(
                "`.{extension}` is not a mesh format sharnir reads; convert it to STL, OBJ or \
                 COLLADA (.dae)"
            ))
        }
    };
    if triangles.is_empty() {
        return Err("it holds no triangle".to_owned());
    }
    if triangles.iter().any(|x| !x.is_finite()) {
        return Err("a vertex is not a finite number".to_owned());
    }
    Ok(triangles)
}

/// A mesh shape for the page, scaled by `scale`: STL and OBJ as triangles,
/// COLLADA (`.dae`) as its text for the page's COLLADA loader.
pub(crate) fn shape(file: &Path, scale: [f64; 3]) -> Result<serde_json::Value, String> {
    let collada = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("dae"));
    if collada {
        let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read it ({e})"))?;
        if !text.contains("<COLLADA") {
            return Err("not a COLLADA file: it has no <COLLADA> element".to_owned());
        }
        return Ok(serde_json::json!({ "shape": "collada", "text": text, "scale": scale }));
    }
    let triangles = read(file)?;
    Ok(serde_json::json!({
        "shape": "mesh",
        "positions": base64_f32(&triangles),
        "scale": scale,
    }))
}

/// Little-endian `f32`s, base64: how the page receives bulk numbers.
pub(crate) fn base64_f32(values: &[f32]) -> String {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Binary STL (80-byte header, a count, 50 bytes per triangle) when the
/// size says so, ASCII (`facet … vertex x y z …`) otherwise.
fn stl(bytes: &[u8]) -> Result<Vec<f32>, String> {
    if let Some(count) = bytes.get(80..84) {
        let count = u32::from_le_bytes([count[0], count[1], count[2], count[3]]) as usize;
        if bytes.len() == 84 + 50 * count {
            let mut triangles = Vec::with_capacity(9 * count);
            for facet in bytes[84..].chunks_exact(50) {
                // 12 bytes of normal, then three corners.
                for corner in facet[12..48].chunks_exact(4) {
                    triangles.push(f32::from_le_bytes([
                        corner[0], corner[1], corner[2], corner[3],
                    ]));
                }
            }
            return Ok(triangles);
        }
    }
    let text = std::str::from_utf8(bytes).map_err(|_| {
        "neither a binary STL (its size does not match its triangle count) nor an ASCII one"
            .to_owned()
    })?;
    if !text.trim_start().starts_with("solid") {
        return Err(
            "not an STL file: an ASCII STL starts with `solid`, and the size of a \
                    binary one does not match its triangle count"
                .to_owned(),
        );
    }
    let mut triangles = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if words.next() != Some("vertex") {
            continue;
        }
        for _ in 0..3 {
            let value = words
                .next()
                .and_then(|w| w.parse::<f32>().ok())
                .ok_or_else(|| format!("line {}: a vertex needs three numbers", number + 1))?;
            triangles.push(value);
        }
    }
    if triangles.len() % 9 != 0 {
        return Err("a facet does not have three vertices".to_owned());
    }
    Ok(triangles)
}

/// OBJ: `v x y z` and `f a b c …` (1-based or negative indices, `a/t/n`
/// forms); everything else ignored.
fn obj(text: &str) -> Result<Vec<f32>, String> {
    let mut vertices: Vec<[f32; 3]> = Vec::new();
    let mut triangles = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        let at = |what: &str| format!("line {}: {what}", number + 1);
        match words.next() {
            Some("v") => {
                let mut xyz = [0.0_f32; 3];
                for slot in &mut xyz {
                    *slot = words
                        .next()
                        .and_then(|w| w.parse().ok())
                        .ok_or_else(|| at("a vertex needs three numbers"))?;
                }
                vertices.push(xyz);
            }
            Some("f") => {
                let corners = words
                    .map(|w| {
                        let index: i64 = w
                            .split('/')
                            .next()
                            .and_then(|i| i.parse().ok())
                            .ok_or_else(|| at("a face's corner is not an index"))?;
                        let resolved = if index < 0 {
                            vertices.len() as i64 + index
                        } else {
                            index - 1
                        };
                        usize::try_from(resolved)
                            .ok()
                            .and_then(|i| vertices.get(i).copied())
                            .ok_or_else(|| at("a face refers to a vertex that does not exist"))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if corners.len() < 3 {
                    return Err(at("a face needs three corners"));
                }
                for k in 1..corners.len() - 1 {
                    for corner in [corners[0], corners[k], corners[k + 1]] {
                        triangles.extend(corner);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(triangles)
}

#[cfg(test)]
mod tests {
    use super::{obj, stl};

    #[test]
    fn binary_and_ascii_stl_and_obj_give_the_same_triangle() {
        let corners = [0.0_f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
        let mut binary = vec![0_u8; 80];
        binary.extend(1_u32.to_le_bytes());
        binary.extend([0_u8; 12]);
        for c in corners {
            binary.extend(c.to_le_bytes());
        }
        binary.extend([0_u8; 2]);
        assert_eq!(stl(&binary).expect("binary"), corners);
        let ascii = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n\
                     vertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
        assert_eq!(stl(ascii.as_bytes()).expect("ascii"), corners);
        let wavefront = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/2 -1\n";
        assert_eq!(obj(wavefront).expect("obj"), corners);
    }

    #[test]
    fn broken_files_are_refused() {
        assert!(stl(b"not a mesh").is_err());
        assert!(stl(b"solid x\nvertex 0 0\n").is_err());
        assert!(obj("v 0 0 0\nf 1 2 3\n").is_err());
    }
}
