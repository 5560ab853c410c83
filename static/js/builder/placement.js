// Where new nodes land: inside the visible canvas, near the selected node, and
// never on top of another node. Positions are canvas coordinates (Drawflow's
// pos_x / pos_y), screen points are converted by undoing pan and zoom.
import { container, editor, state } from "./context.js";

export const NODE_WIDTH = 170;
export const NODE_HEIGHT = 80;
const GAP = 30;
const MARGIN = 16;
const STEP_X = NODE_WIDTH + GAP + 40;
const STEP_Y = NODE_HEIGHT + GAP;

/** Screen coordinates -> canvas coordinates (undoing pan and zoom). */
export function canvasPoint(clientX, clientY) {
  const rect = editor.precanvas.getBoundingClientRect();
  return { x: (clientX - rect.left) / editor.zoom, y: (clientY - rect.top) / editor.zoom };
}

/** The part of the canvas the user sees, in canvas coordinates. */
export function visibleArea() {
  const rect = container.getBoundingClientRect();
  const topLeft = canvasPoint(rect.left, rect.top);
  const bottomRight = canvasPoint(rect.right, rect.bottom);
  return { left: topLeft.x, top: topLeft.y, right: bottomRight.x, bottom: bottomRight.y };
}

function entries() {
  return Object.values(editor.drawflow.drawflow.Home.data);
}

function clampInto(area, { x, y }) {
  const maxX = Math.max(area.left + MARGIN, area.right - NODE_WIDTH - MARGIN);
  const maxY = Math.max(area.top + MARGIN, area.bottom - NODE_HEIGHT - MARGIN);
  return {
    x: Math.min(Math.max(x, area.left + MARGIN), maxX),
    y: Math.min(Math.max(y, area.top + MARGIN), maxY),
  };
}

function isFree({ x, y }, taken) {
  return !taken.some(([left, top]) =>
    Math.abs(left - x) < NODE_WIDTH + GAP && Math.abs(top - y) < NODE_HEIGHT + GAP);
}

function inside(area, { x, y }) {
  return x >= area.left + MARGIN - 0.5 && y >= area.top + MARGIN - 0.5 &&
    x + NODE_WIDTH <= area.right - MARGIN + 0.5 && y + NODE_HEIGHT <= area.bottom - MARGIN + 0.5;
}

/**
 * The free spot nearest to `wanted`: first inside the visible area (rings of
 * grid steps around it), else the first free row below every node.
 */
export function freeSpot(wanted, { taken = entries().map((entry) => [entry.pos_x, entry.pos_y]) } = {}) {
  const area = visibleArea();
  const start = clampInto(area, wanted);
  let best = null;
  for (let ring = 0; ring < 12 && !best; ring += 1) {
    const candidates = [];
    for (let dx = -ring; dx <= ring; dx += 1) {
      for (let dy = -ring; dy <= ring; dy += 1) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        candidates.push({ x: start.x + dx * STEP_X / 2, y: start.y + dy * STEP_Y / 2 });
      }
    }
    candidates.sort((a, b) => Math.hypot(a.x - start.x, a.y - start.y) - Math.hypot(b.x - start.x, b.y - start.y));
    best = candidates.find((spot) => inside(area, spot) && isFree(spot, taken)) || null;
  }
  if (!best) {
    const lowest = Math.max(...taken.map(([, top]) => top), area.top);
    best = { x: start.x, y: lowest + STEP_Y };
  }
  return { x: Math.round(best.x), y: Math.round(best.y) };
}

/** Where a pasted node lands: right of the selected node, else top left of the view. */
export function placeForNewNode() {
  const selected = state.selected && editor.drawflow.drawflow.Home.data[state.selected];
  if (selected) return { x: selected.pos_x + STEP_X, y: selected.pos_y };
  const area = visibleArea();
  return { x: area.left + 60, y: area.top + 60 };
}

/**
 * Where a palette item lands and what connects to it: one node width and a
 * gap right of the selected node, connected from it (`from`, its Drawflow id),
 * the spot taken as is (`exact`: the view then follows the node); with nothing
 * selected, the nearest free spot inside the view.
 */
export function placeFromPalette() {
  const selected = state.selected && editor.drawflow.drawflow.Home.data[state.selected];
  if (!selected) return { position: placeForNewNode(), exact: false, from: null };
  const width = document.getElementById(`node-${state.selected}`)?.offsetWidth || NODE_WIDTH;
  const taken = entries().filter((entry) => String(entry.id) !== state.selected)
    .map((entry) => [entry.pos_x, entry.pos_y]);
  let spot = { x: selected.pos_x + width + GAP + 20, y: selected.pos_y };
  // A second node added from the same one goes below the first.
  while (!isFree(spot, taken)) spot = { x: spot.x, y: spot.y + STEP_Y };
  return { position: spot, exact: true, from: state.selected };
}
