// The animation page of `sharnir sim --html`: draws the run recorded in
// #run-data (body poses per sample, base64 float32) with the scene that
// `sharnir sim` derived from the spec, beside the coordinates' curves.
// Plain script over the global THREE (crates/sharnir-sim/vendor/three).
(function () {
  "use strict";

  const errorBox = document.getElementById("errors");
  const errors = [];
  function report(message) {
    errors.push(String(message));
    errorBox.textContent = errors.join("\n");
    errorBox.hidden = false;
  }
  window.addEventListener("error", (e) => report(e.message));
  const consoleError = console.error.bind(console);
  console.error = (...parts) => {
    report(parts.join(" "));
    consoleError(...parts);
  };

  function floats(text) {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new Float32Array(bytes.buffer);
  }

  const run = JSON.parse(document.getElementById("run-data").textContent);
  const params = new URLSearchParams(window.location.search);
  const films = run.films.map((f) => ({
    bodies: f.bodies,
    coordinates: f.coordinates,
    times: floats(f.times),
    poses: floats(f.poses),
    positions: floats(f.positions),
    energy: floats(f.energy),
    work: floats(f.work),
  }));
  const scene3 = run.scene || { bodies: [], joints: [], gravity: [0, 0, -9.81] };
  const start = films[0].times[0];
  const last = films[films.length - 1];
  const end = last.times[last.times.length - 1];

  // Up is against gravity (z when there is none).
  const g = new THREE.Vector3().fromArray(scene3.gravity || [0, 0, -1]);
  const up = g.lengthSq() > 0 ? g.clone().normalize().negate() : new THREE.Vector3(0, 0, 1);

  const view = document.getElementById("view");
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  view.insertBefore(renderer.domElement, view.firstChild);
  const world = new THREE.Scene();
  world.background = new THREE.Color(0xf4f5f7);
  const camera = new THREE.PerspectiveCamera(40, 1, 0.001, 1000);
  camera.up.copy(up);
  world.add(new THREE.HemisphereLight(0xffffff, 0x888888, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.copy(up).multiplyScalar(5).add(new THREE.Vector3(2, 3, 1));
  world.add(sun);

  // Bodies: one group per body name, moved by the recorded poses.
  const palette = [0x4682b4, 0xd2691e, 0x2e8b57, 0x9370db, 0xb8860b, 0x20b2aa, 0xcd5c5c, 0x708090];
  const groups = new Map();
  const names = [];
  const qa = new THREE.Quaternion();
  const qb = new THREE.Quaternion();
  for (const film of films) {
    for (const name of film.bodies) {
      if (!groups.has(name)) {
        const group = new THREE.Group();
        group.name = name;
        group.visible = false;
        world.add(group);
        groups.set(name, group);
        names.push(name);
      }
    }
  }
  const ground = new THREE.Group();
  world.add(ground);
  function hostGroup(name) {
    return name === "ground" ? ground : groups.get(name);
  }

  function geometryOf(v) {
    switch (v.shape) {
      case "box":
        return new THREE.BoxGeometry(v.size[0], v.size[1], v.size[2]);
      case "sphere":
        return new THREE.SphereGeometry(v.radius, 24, 16);
      case "cylinder":
        return new THREE.CylinderGeometry(v.radius, v.radius, v.length, 24).rotateX(Math.PI / 2);
      case "capsule":
        return new THREE.CapsuleGeometry(v.radius, v.length, 8, 16).rotateX(Math.PI / 2);
      case "mesh": {
        const geometry = new THREE.BufferGeometry();
        geometry.setAttribute("position", new THREE.BufferAttribute(floats(v.positions), 3));
        geometry.scale(v.scale[0], v.scale[1], v.scale[2]);
        geometry.computeVertexNormals();
        return geometry;
      }
      default:
        report("unknown shape " + v.shape);
        return new THREE.SphereGeometry(0.01);
    }
  }

  // A COLLADA mesh with its own materials, in the link frame as URDF tools
  // read it: the loader's turn of a Z-up file to three.js's Y-up is undone,
  // its unit kept.
  function collada(v) {
    const outer = new THREE.Group();
    const loaded = new THREE.ColladaLoader().parse(v.text, "");
    loaded.scene.rotation.set(0, 0, 0);
    // Textures are files beside the mesh, not in the page: draw the
    // materials' own colours instead of an image that never comes.
    loaded.scene.traverse((node) => {
      for (const material of [].concat(node.material || [])) {
        if (material.map) {
          material.map = null;
          if (material.color && material.color.getHex() === 0) material.color.set(0x9a9a9a);
          material.needsUpdate = true;
        }
      }
    });
    loaded.scene.scale.multiply(new THREE.Vector3(v.scale[0], v.scale[1], v.scale[2]));
    outer.add(loaded.scene);
    return outer;
  }

  const drawn = new Set();
  scene3.bodies.forEach((body, index) => {
    const host = hostGroup(body.host);
    if (!host) return;
    drawn.add(body.host);
    const placement = new THREE.Matrix4().fromArray(body.placement);
    const base = palette[index % palette.length];
    for (const v of body.visuals) {
      const color = v.color ? new THREE.Color(v.color[0], v.color[1], v.color[2]) : new THREE.Color(base);
      // The default inertia box is a ghost around the rods.
      const ghost = v.role === "inertia";
      const material = new THREE.MeshStandardMaterial({
        color,
        roughness: 0.6,
        metalness: 0.1,
        transparent: ghost,
        opacity: ghost ? 0.3 : 1,
        depthWrite: !ghost,
        side: THREE.DoubleSide,
      });
      const object = v.shape === "collada" ? collada(v) : new THREE.Mesh(geometryOf(v), material);
      object.matrixAutoUpdate = false;
      object.matrix.multiplyMatrices(placement, new THREE.Matrix4().fromArray(v.matrix));
      object.userData.body = body.name;
      host.add(object);
    }
  });

  // The length scale of the mechanism and what the camera frames: where
  // the bodies go until the first release (a body thrown far away would
  // shrink the rest to a dot; zoom out to follow it).
  const box = new THREE.Box3();
  const point = new THREE.Vector3();
  const framed = films[0].poses;
  for (let k = 0; k < framed.length; k += 7) {
    box.expandByPoint(point.set(framed[k], framed[k + 1], framed[k + 2]));
  }
  box.expandByPoint(new THREE.Vector3(0, 0, 0));
  // …and the shapes, where they are at the start.
  pose(start);
  world.updateMatrixWorld(true);
  for (const group of groups.values()) if (group.visible) box.expandByObject(group);
  box.expandByObject(ground);
  const size = Math.max(box.getSize(new THREE.Vector3()).length(), 0.1);
  const frameSize = 0.08 * size;

  // Bodies without shapes: their frames.
  for (const [name, group] of groups) {
    if (!drawn.has(name)) {
      group.add(new THREE.AxesHelper(frameSize));
      const dot = new THREE.Mesh(
        new THREE.SphereGeometry(0.15 * frameSize, 16, 12),
        new THREE.MeshStandardMaterial({ color: 0x4682b4 })
      );
      group.add(dot);
    }
  }

  // A name written beside a frame: a sprite of canvas text, a fixed share
  // of the mechanism's size high.
  function label(text, colour) {
    const canvas = document.createElement("canvas");
    const context2d = canvas.getContext("2d");
    const font = "28px system-ui, sans-serif";
    context2d.font = font;
    canvas.width = Math.ceil(context2d.measureText(text).width) + 12;
    canvas.height = 40;
    context2d.font = font;
    context2d.fillStyle = "rgba(255, 255, 255, 0.75)";
    context2d.fillRect(0, 0, canvas.width, canvas.height);
    context2d.fillStyle = colour;
    context2d.fillText(text, 6, 29);
    const sprite = new THREE.Sprite(
      new THREE.SpriteMaterial({ map: new THREE.CanvasTexture(canvas), depthTest: false, transparent: true })
    );
    const height = 0.035 * size;
    sprite.scale.set((height * canvas.width) / canvas.height, height, 1);
    sprite.center.set(-0.05, -0.2);
    sprite.renderOrder = 5;
    return sprite;
  }

  // Joint frames with their names (on demand; always for a still view),
  // body names at the body origins, and cut joints (always: an orange ball
  // on each side).
  const frames = [];
  for (const [name, group] of groups) {
    const tag = label(name, "#1f3f8f");
    tag.visible = false;
    group.add(tag);
    frames.push(tag);
  }
  for (const joint of scene3.joints) {
    const sides = [[joint.parent, joint.parent_frame]];
    if (joint.cut) sides.push([joint.child, joint.child_frame]);
    for (const [host, matrix] of sides) {
      const group = hostGroup(host);
      if (!group) continue;
      const m = new THREE.Matrix4().fromArray(matrix);
      const axes = new THREE.AxesHelper(0.6 * frameSize);
      axes.matrixAutoUpdate = false;
      axes.matrix.copy(m);
      axes.visible = false;
      group.add(axes);
      frames.push(axes);
      const tag = label(joint.name + (joint.cut ? " (cut)" : ""), "#7f3f00");
      tag.position.setFromMatrixPosition(m);
      tag.visible = false;
      group.add(tag);
      frames.push(tag);
      if (joint.cut) {
        const ball = new THREE.Mesh(
          new THREE.SphereGeometry(0.12 * frameSize, 16, 12),
          new THREE.MeshStandardMaterial({ color: 0xff8c00 })
        );
        ball.matrixAutoUpdate = false;
        ball.matrix.copy(m);
        group.add(ball);
      }
    }
  }

  // Ground grid in the plane across `up`, and the ground frame.
  const step = Math.pow(10, Math.floor(Math.log10(size / 2)));
  const grid = new THREE.GridHelper(20 * step, 20, 0xb0b0b0, 0xd8d8d8);
  grid.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), up);
  world.add(grid);
  world.add(new THREE.AxesHelper(2 * frameSize));

  const center = box.getCenter(new THREE.Vector3());
  const across = new THREE.Vector3(1, 0.8, 0).cross(up).normalize();
  if (across.lengthSq() < 1e-6) across.set(1, 0, 0);
  camera.position
    .copy(center)
    .addScaledVector(across, 1.1 * size)
    .addScaledVector(up, 0.5 * size)
    .addScaledVector(new THREE.Vector3().crossVectors(up, across), 0.6 * size);
  const controls = new THREE.OrbitControls(camera, renderer.domElement);
  controls.target.copy(center);
  controls.update();

  // Time: the film and the samples around t, interpolated.
  function locate(t) {
    let film = films[0];
    for (const f of films) if (t >= f.times[0]) film = f;
    const times = film.times;
    let lo = 0;
    let hi = times.length - 1;
    if (t <= times[0]) return { film, i: 0, a: 0 };
    if (t >= times[hi]) return { film, i: hi, a: 0 };
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= t) lo = mid;
      else hi = mid;
    }
    const span = times[hi] - times[lo];
    return { film, i: lo, a: span > 0 ? (t - times[lo]) / span : 0 };
  }

  function pose(t) {
    const { film, i, a } = locate(t);
    const n = film.bodies.length;
    const j = Math.min(i + 1, film.times.length - 1);
    for (const group of groups.values()) group.visible = false;
    film.bodies.forEach((name, b) => {
      const group = groups.get(name);
      const k = 7 * (i * n + b);
      const l = 7 * (j * n + b);
      const p = film.poses;
      group.position.set(
        p[k] + a * (p[l] - p[k]),
        p[k + 1] + a * (p[l + 1] - p[k + 1]),
        p[k + 2] + a * (p[l + 2] - p[k + 2])
      );
      qa.set(p[k + 3], p[k + 4], p[k + 5], p[k + 6]);
      qb.set(p[l + 3], p[l + 4], p[l + 5], p[l + 6]);
      group.quaternion.copy(qa).slerp(qb, a);
      group.visible = true;
    });
    return { film, i, a };
  }

  // The curves: every position coordinate of the film at t, and T + V.
  const plots = document.getElementById("plots");
  const context = plots.getContext("2d");
  const colours = ["#4682b4", "#d2691e", "#2e8b57", "#9370db", "#b8860b", "#20b2aa", "#cd5c5c", "#708090"];
  function drawPlots(t) {
    const { film } = locate(t);
    const ratio = window.devicePixelRatio || 1;
    const width = plots.clientWidth;
    const height = plots.clientHeight;
    plots.width = width * ratio;
    plots.height = height * ratio;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    const left = 48;
    const right = width - 10;
    const x = (s) => left + ((s - start) / Math.max(end - start, 1e-12)) * (right - left);
    const panels = [
      { top: 18, bottom: 0.62 * height, title: "coordinates", series: [] },
      { top: 0.62 * height + 26, bottom: height - 22, title: "energy: T + V (blue), T + V − W (green; W: work of forces, stops, damping)", series: [] },
    ];
    const nq = film.coordinates.length;
    for (const f of films) {
      const m = f.coordinates.length;
      for (let c = 0; c < m; c++) {
        const values = new Float32Array(f.times.length);
        for (let s = 0; s < f.times.length; s++) values[s] = f.positions[s * m + c];
        const angle = f.coordinates[c].endsWith(", rad");
        panels[0].series.push({ times: f.times, values, colour: colours[c % colours.length], name: f.coordinates[c], angle });
      }
      panels[1].series.push({ times: f.times, values: f.energy, colour: "#1f3fbf", name: "T + V" });
      const balance = f.energy.map((e, i) => e - f.work[i]);
      panels[1].series.push({ times: f.times, values: balance, colour: "#2e8b57", name: "T + V − W" });
    }
    for (const panel of panels) {
      let lo = Infinity;
      let hi = -Infinity;
      for (const s of panel.series) for (const v of s.values) { if (v < lo) lo = v; if (v > hi) hi = v; }
      if (!(hi > lo)) { lo -= 1; hi += 1; }
      const y = (v) => panel.bottom - ((v - lo) / (hi - lo)) * (panel.bottom - panel.top);
      context.fillStyle = "#333";
      context.font = "12px system-ui, sans-serif";
      context.fillText(panel.title, left, panel.top - 6);
      context.fillStyle = "#777";
      context.font = "10px system-ui, sans-serif";
      context.fillText(hi.toPrecision(4), 2, panel.top + 8);
      context.fillText(lo.toPrecision(4), 2, panel.bottom);
      context.strokeStyle = "#ccc";
      context.strokeRect(left, panel.top, right - left, panel.bottom - panel.top);
      for (const s of panel.series) {
        context.strokeStyle = s.colour;
        context.lineWidth = 1.2;
        context.beginPath();
        for (let i = 0; i < s.times.length; i++) {
          const px = x(s.times[i]);
          const py = y(s.values[i]);
          // A wrapped angle's jump across ±π is not a line.
          const jump = s.angle && i > 0 && Math.abs(s.values[i] - s.values[i - 1]) > Math.PI;
          if (i === 0 || jump) context.moveTo(px, py);
          else context.lineTo(px, py);
        }
        context.stroke();
      }
    }
    context.fillStyle = "#777";
    context.fillText(start.toPrecision(3) + " s", left, height - 6);
    context.fillText(end.toPrecision(3) + " s", right - 40, height - 6);
    const legend = film.coordinates.slice(0, 12);
    legend.forEach((name, c) => {
      context.fillStyle = colours[c % colours.length];
      context.fillText(name, right - 90, panels[0].top + 12 + 11 * c);
    });
    if (nq > legend.length) context.fillText("…", right - 90, panels[0].top + 12 + 11 * legend.length);
    context.strokeStyle = "#e03030";
    context.lineWidth = 1;
    context.beginPath();
    context.moveTo(x(t), 4);
    context.lineTo(x(t), height - 18);
    context.stroke();
  }

  // Controls.
  const play = document.getElementById("play");
  const speed = document.getElementById("speed");
  const loop = document.getElementById("loop");
  const slider = document.getElementById("time");
  const clock = document.getElementById("clock");
  let t = start;
  let playing = true;
  let previous = null;

  const marks = document.getElementById("marks");
  for (const e of run.events) {
    const mark = document.createElement("span");
    mark.style.left = (100 * (e.t - start)) / Math.max(end - start, 1e-12) + "%";
    mark.title = e.name + " at " + e.t.toPrecision(6) + " s";
    marks.appendChild(mark);
  }

  function show(time) {
    t = Math.min(Math.max(time, start), end);
    pose(t);
    slider.value = String(Math.round((1000 * (t - start)) / Math.max(end - start, 1e-12)));
    clock.textContent = "t = " + t.toFixed(3) + " s";
    drawPlots(t);
  }
  // ?probe fixes the view at 800 × 500 in the window's corner, so that
  // every headless run lays it out alike.
  const fixed = params.has("probe");
  if (fixed) {
    Object.assign(renderer.domElement.style, {
      position: "fixed", left: "0", top: "0", width: "800px", height: "500px", zIndex: "5",
    });
  }
  function render() {
    const width = fixed ? 800 : view.clientWidth;
    const height = fixed ? 500 : view.clientHeight;
    if (renderer.domElement.width !== Math.floor(width * renderer.getPixelRatio())) {
      renderer.setSize(width, height, false);
      camera.aspect = width / Math.max(height, 1);
      camera.updateProjectionMatrix();
    }
    renderer.render(world, camera);
  }
  function frame(now) {
    if (playing && previous !== null) {
      let next = t + ((now - previous) / 1000) * Number(speed.value);
      if (next > end) {
        if (loop.checked) next = start;
        else {
          next = end;
          setPlaying(false);
        }
      }
      show(next);
    }
    previous = now;
    render();
    requestAnimationFrame(frame);
  }
  function setPlaying(on) {
    playing = on;
    play.textContent = on ? "pause" : "play";
  }
  play.addEventListener("click", () => setPlaying(!playing));
  document.addEventListener("keydown", (e) => {
    if (e.code === "Space" && e.target === document.body) {
      e.preventDefault();
      setPlaying(!playing);
    }
  });
  slider.addEventListener("input", () => {
    setPlaying(false);
    show(start + (Number(slider.value) / 1000) * (end - start));
  });
  document.getElementById("frames").addEventListener("change", (e) => {
    for (const f of frames) f.visible = e.target.checked;
  });
  plots.addEventListener("click", (e) => {
    const rect = plots.getBoundingClientRect();
    const fraction = (e.clientX - rect.left - 48) / Math.max(rect.width - 58, 1);
    setPlaying(false);
    show(start + Math.min(Math.max(fraction, 0), 1) * (end - start));
  });
  window.addEventListener("resize", () => show(t));

  // For tests and scripts: seek, and where a body's origin is on screen.
  if (params.has("t")) {
    setPlaying(false);
    show(Number(params.get("t")));
  } else {
    show(start);
  }
  if (params.has("paused")) setPlaying(false);
  // One configuration (`sharnir view`): frames and names on, no time.
  if (run.still || params.has("frames")) {
    document.getElementById("frames").checked = true;
    for (const f of frames) f.visible = true;
  }
  if (run.still) {
    setPlaying(false);
    const hide = (element) => (element.style.display = "none");
    for (const id of ["play", "timeline", "clock"]) hide(document.getElementById(id));
    hide(document.querySelector("aside"));
    for (const label of document.querySelectorAll("header label")) {
      if (!label.contains(document.getElementById("frames"))) hide(label);
    }
    window.dispatchEvent(new Event("resize"));
    document.getElementById("legend").textContent =
      "drag: orbit · right-drag: pan · wheel: zoom · blue: bodies at their frame origins · brown: joint frames (x red, y green, z blue) on the parent side; a cut joint's on both sides";
  }
  window.sharnir = {
    start,
    end,
    bodies: names,
    errors,
    seek(time) {
      setPlaying(false);
      show(time);
      render();
    },
    screenPosition(name) {
      const group = groups.get(name);
      if (!group) return null;
      world.updateMatrixWorld();
      const p = new THREE.Vector3().setFromMatrixPosition(group.matrixWorld).project(camera);
      const rect = renderer.domElement.getBoundingClientRect();
      return [rect.left + ((p.x + 1) / 2) * rect.width, rect.top + ((1 - p.y) / 2) * rect.height];
    },
  };
  render();
  // ?probe=BODY (with ?t=…): a magenta marker at the body's origin, drawn
  // over everything, and what a test needs to find it written into the
  // page: the camera's view-projection matrix, the canvas size, the errors
  // and how much of the canvas is not background.
  if (params.has("probe")) {
    const group = groups.get(params.get("probe"));
    if (group) {
      const marker = new THREE.Mesh(
        new THREE.SphereGeometry(0.04 * size, 16, 12),
        new THREE.MeshBasicMaterial({ color: 0xff00ff, depthTest: false, transparent: true })
      );
      marker.renderOrder = 10;
      group.add(marker);
    } else {
      report("no body " + params.get("probe"));
    }
    render();
    const gl = renderer.getContext();
    const width = gl.drawingBufferWidth;
    const height = gl.drawingBufferHeight;
    const pixels = new Uint8Array(4 * width * height);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
    let drawn = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      if (Math.abs(pixels[i] - 0xf4) + Math.abs(pixels[i + 1] - 0xf5) + Math.abs(pixels[i + 2] - 0xf7) > 24) drawn++;
    }
    camera.updateMatrixWorld();
    const viewProjection = new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    const rect = renderer.domElement.getBoundingClientRect();
    const out = document.createElement("pre");
    out.id = "probe";
    out.hidden = true;
    out.textContent = JSON.stringify({
      t,
      opened: performance.now(),
      errors,
      drawn: drawn / (width * height),
      viewProjection: viewProjection.elements,
      canvas: [rect.left, rect.top, rect.width, rect.height],
    });
    document.body.appendChild(out);
  }
  document.body.dataset.ready = "true";
  document.body.dataset.opened = String(Math.round(performance.now()));
  requestAnimationFrame(frame);
})();
