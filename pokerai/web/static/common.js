// Helpers shared by the analyzer's pages (index.html, spot.html): loaded before each page's script.
"use strict";

const $ = (id) => document.getElementById(id);

function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined) search.set(key, String(value));
  }
  return search.toString();
}

// The JSON answer of a request; an Error with the server's sentence ({"error": ...}) where it refuses.
async function fetchJson(url, options) {
  const response = await fetch(url, options || {});
  let payload;
  try {
    payload = await response.json();
  } catch (error) {
    throw new Error(`the server answered ${response.status} without JSON`);
  }
  if (!response.ok) throw new Error(payload.error || `the server answered ${response.status}`);
  return payload;
}
