// What part of the canvas the user sees: zoom buttons, Fit, the wheel (pans;
// Ctrl+wheel zooms, which Drawflow does itself) and a minimap that shows every
// node and the visible part, and moves the view where it is clicked.
//
// Drawflow draws the canvas as translate(canvas_x, canvas_y) scale(zoom) around
// the canvas centre, so a canvas point p lands at centre + (p - centre) * zoom + t.
import { container, editor, graphListeners, nodeElement } from "./context.js";
import { $ } from "./dom.js";
import { visibleArea } from "./placement.js";

// Ctrl+wheel and the buttons may zoom far out; Fit stops at FIT_ZOOM_MIN, where
// node names stay readable, and the rest of a big flow is reached by panning.
editor.zoom_min = 0.1;
export const FIT_ZOOM_MIN = 0.6;

function applyTransform() {
  editor.precanvas.style.transform =
    `translate(${editor.canvas_x}px, ${editor.canvas_y}px) scale(${editor.zoom})`;
  $("zoom-reset").textContent = `${Math.round(editor.zoom * 100)}%`;
  renderMinimap();
}

/** Canvas-coordinate box around every node, or null for an empty flow. */
function graphBounds() {
  const entries = Object.values(editor.drawflow.drawflow.Home.data);
  if (!entries.length) return null;
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const entry of entries) {
    const element = nodeElement(String(entry.id));
    minX = Math.min(minX, entry.pos_x);
    minY = Math.min(minY, entry.pos_y);
    maxX = Math.max(maxX, entry.pos_x + (element?.offsetWidth || 170));
    maxY = Math.max(maxY, entry.pos_y + (element?.offsetHeight || 60));
  }
  return { minX, minY, maxX, maxY };
}

/** Pan so canvas point (x, y) is drawn at screen offset (left, top) in the canvas. */
function showPointAt(x, y, left, top) {
  const centreX = editor.precanvas.clientWidth / 2;
  const centreY = editor.precanvas.clientHeight / 2;
  editor.canvas_x = left - (centreX + (x - centreX) * editor.zoom);
  editor.canvas_y = top - (centreY + (y - centreY) * editor.zoom);
  applyTransform();
}

/**
 * Zoom and pan so every node is in view, centred, between FIT_ZOOM_MIN and
 * 100%; a flow too big for that shows from its top left corner.
 */
export function fitView() {
  const bounds = graphBounds();
  if (!bounds) return;
  const pad = 40;
  const width = bounds.maxX - bounds.minX;
  const height = bounds.maxY - bounds.minY;
  const zoom = Math.max(FIT_ZOOM_MIN, Math.min(1,
    (container.clientWidth - 2 * pad) / width, (container.clientHeight - 2 * pad) / height));
  editor.zoom = zoom;
  editor.zoom_last_value = zoom;
  showPointAt(bounds.minX, bounds.minY,
    Math.max(pad, (container.clientWidth - width * zoom) / 2),
    Math.max(pad, (container.clientHeight - height * zoom) / 2));
}

/** True when some node sits (partly) outside the visible canvas. */
export function graphOverflowsView() {
  const view = container.getBoundingClientRect();
  return [...container.querySelectorAll(".drawflow-node")].some((element) => {
    const box = element.getBoundingClientRect();
    return box.left < view.left || box.top < view.top || box.right > view.right || box.bottom > view.bottom;
  });
}

/** Pan the least that shows the whole node `dfId` (with a margin). */
export function bringIntoView(dfId) {
  const element = nodeElement(String(dfId));
  if (!element) return;
  const view = container.getBoundingClientRect();
  const box = element.getBoundingClientRect();
  const margin = 24;
  let dx = 0;
  let dy = 0;
  if (box.right > view.right - margin) dx = box.right - view.right + margin;
  if (box.left - dx < view.left + margin) dx = box.left - view.left - margin;
  if (box.bottom > view.bottom - margin) dy = box.bottom - view.bottom + margin;
  if (box.top - dy < view.top + margin) dy = box.top - view.top - margin;
  if (dx || dy) panBy(dx, dy);
}

export function panBy(dx, dy) {
  editor.canvas_x -= dx;
  editor.canvas_y -= dy;
  applyTransform();
}

container.addEventListener("wheel", (event) => {
  if (event.ctrlKey || event.metaKey) return; // Drawflow zooms
  event.preventDefault();
  const lines = event.deltaMode === 1 ? 16 : 1;
  panBy((event.shiftKey ? event.deltaY : event.deltaX) * lines, (event.shiftKey ? 0 : event.deltaY) * lines);
}, { passive: false });

// ---------------------------------------------------------------- minimap

const minimap = $("minimap");
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, value);
  return element;
}

/** The world the minimap shows: every node and the visible area, with a margin. */
function minimapWorld() {
  const view = visibleArea();
  const bounds = graphBounds() || { minX: view.left, minY: view.top, maxX: view.right, maxY: view.bottom };
  const left = Math.min(bounds.minX, view.left) - 40;
  const top = Math.min(bounds.minY, view.top) - 40;
  const right = Math.max(bounds.maxX, view.right) + 40;
  const bottom = Math.max(bounds.maxY, view.bottom) + 40;
  return { left, top, width: right - left, height: bottom - top, view };
}

export function renderMinimap() {
  if (!minimap) return;
  const world = minimapWorld();
  minimap.setAttribute("viewBox", `${world.left} ${world.top} ${world.width} ${world.height}`);
  const shapes = Object.values(editor.drawflow.drawflow.Home.data).map((entry) => {
    const element = nodeElement(String(entry.id));
    return svg("rect", {
      class: "minimap-node", x: entry.pos_x, y: entry.pos_y,
      width: element?.offsetWidth || 170, height: element?.offsetHeight || 60, rx: 8,
    });
  });
  const { view } = world;
  shapes.push(svg("rect", {
    class: "minimap-view", x: view.left, y: view.top,
    width: view.right - view.left, height: view.bottom - view.top,
  }));
  minimap.replaceChildren(...shapes);
}

// A click on the minimap centres the view on that point.
minimap?.addEventListener("click", (event) => {
  const world = minimapWorld();
  const box = minimap.getBoundingClientRect();
  // preserveAspectRatio="xMidYMid meet": one scale, the world centred in the box.
  const scale = Math.min(box.width / world.width, box.height / world.height);
  const x = world.left + (event.clientX - box.left - (box.width - world.width * scale) / 2) / scale;
  const y = world.top + (event.clientY - box.top - (box.height - world.height * scale) / 2) / scale;
  showPointAt(x, y, container.clientWidth / 2, container.clientHeight / 2);
});

for (const eventName of ["translate", "zoom", "nodeMoved", "nodeCreated", "nodeRemoved", "import"]) {
  editor.on(eventName, () => requestAnimationFrame(renderMinimap));
}
graphListeners.push(() => requestAnimationFrame(renderMinimap));

$("zoom-fit").addEventListener("click", fitView);
$("zoom-in").addEventListener("click", () => editor.zoom_in());
$("zoom-out").addEventListener("click", () => editor.zoom_out());
$("zoom-reset").addEventListener("click", () => editor.zoom_reset());
editor.on("zoom", (level) => { $("zoom-reset").textContent = `${Math.round(level * 100)}%`; });
