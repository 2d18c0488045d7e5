// Building the page: elements from plain data (text is never parsed as HTML), the main area,
// the screen reader's live region, and the catalog's words for cards and options.

import { named } from "./words.js";

/** An element: h("button", {class: "x", onclick: f}, "label", child, ...). Text is never parsed as HTML. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** Replace the main area, keeping the keyboard's place: the element focused before (known by its
 * `data-focus`) is focused again when it is still there. */
export function show(...children) {
  const main = document.getElementById("main");
  const focused = document.activeElement && main.contains(document.activeElement) ? document.activeElement.dataset.focus : null;
  main.replaceChildren(...children);
  if (focused) {
    const again = [...main.querySelectorAll("[data-focus]")].find((element) => element.dataset.focus === focused && !element.disabled);
    // the element pressed is gone (a card played): the keyboard goes on from the first action now allowed
    const next = again || main.querySelector("[data-action]:enabled");
    if (next) next.focus();
  }
}

let lastAnnounced = "";

/** Say something to screen readers once (the live region), without moving the focus. */
export function announce(words) {
  if (!words || words === lastAnnounced) return;
  lastAnnounced = words;
  document.getElementById("announce").textContent = words;
}

// --- the catalog -------------------------------------------------------------------------------

export const catalog = { current: null };

export function ruleset(id) {
  return catalog.current.rulesets.find((entry) => entry.id === id);
}

export function cardName(code) {
  return named(catalog.current.cards.find((entry) => entry.code === code).names);
}

export function suitName(code) {
  return named(catalog.current.suits.find((entry) => entry.code === code).names);
}

/** How an option's value reads: the catalog's label for it where it has one, else the value. */
export function valueLabel(option, value) {
  const label = option.labels.find((entry) => entry.value === value);
  return label ? named(label.names) : String(value);
}

export function levelName(entry, level) {
  const found = entry.levels.find((candidate) => candidate.level === level);
  return found ? named(found.names) : level;
}
