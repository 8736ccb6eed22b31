// @ts-check
// The clip page's character picker: the project's characters (GET
// projects/{id}/characters/, from `data-characters-url` on the player) in a select shown
// once there is one, and for the one picked the clip's motion retargeted onto it
// (GET characters/{id}/clips/{clip}/download/viewer.json/) and the body to draw it with
// (its `body.glb`). The page swaps its skeleton view (clip-viewer.js).

import { getJson, messageOf } from "../api.js";

/**
 * A character as the API lists it (webapp.characters.api.CharacterSerializer).
 * @typedef {{id: number, name: string, downloads: Record<string, string>,
 *   report: {height_m: number, joints: number}}} CharacterItem
 */

/**
 * What a pick hands the page: the clip on the character, or null for the mannequin.
 * @typedef {{id: number, name: string, arrays: import("./arrays.js").ViewerArrays,
 *   bodyUrl: string} | null} Picked
 */

export class CharacterPick {
  /**
   * @param {HTMLElement} root the player (data-characters-url, data-clip-id)
   * @param {(picked: Picked) => Promise<void> | void} onPick
   */
  constructor(root, onPick) {
    this.root = root;
    this.onPick = onPick;
    this.box = /** @type {HTMLElement | null} */ (root.querySelector("[data-character-pick]"));
    this.select = /** @type {HTMLSelectElement | null} */ (root.querySelector("[data-character]"));
    this.status = /** @type {HTMLElement | null} */ (root.querySelector("[data-character-status]"));
    /** @type {CharacterItem[]} */
    this.characters = [];
    this.select?.addEventListener("change", () => this.pick(this.select?.value ?? ""));
  }

  /** List the project's characters (the picker stays hidden without any). */
  async load() {
    const url = this.root.dataset.charactersUrl;
    if (!url || !this.select || !this.box) return;
    /** @type {{results: CharacterItem[]}} */
    const page = await getJson(url);
    this.characters = page.results;
    for (const character of this.characters) {
      const label = `${character.name} (${character.report.joints} joints, ${character.report.height_m.toFixed(2)} m)`;
      this.select.add(new Option(label, String(character.id)));
    }
    this.box.hidden = this.characters.length === 0;
  }

  /**
   * Show the clip on character `id` ("" for the mannequin).
   * @param {string} id
   */
  async pick(id) {
    const character = this.characters.find((c) => String(c.id) === id);
    const say = (/** @type {string} */ text) => { if (this.status) this.status.textContent = text; };
    try {
      if (!character) {
        await this.onPick(null);
        say("");
        return;
      }
      say("Retargeting the clip onto the character…");
      const bodyUrl = character.downloads["body.glb"];
      const viewerUrl = bodyUrl.replace(/download\/body\.glb\/$/, `clips/${this.root.dataset.clipId}/download/viewer.json/`);
      const arrays = await getJson(viewerUrl);
      await this.onPick({ id: character.id, name: character.name, arrays, bodyUrl });
      say(`the clip retargeted onto ${character.name}`);
    } catch (error) {
      say(`Could not show the clip on ${character?.name}: ${messageOf(error)}`);
    }
  }
}
