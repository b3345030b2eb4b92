// The one importer of the vendored libraries (scripts/vendor-console.sh rewrites the versioned
// names below when it vendors new ones). Pages import from here.
import { h, render } from '../vendor/preact-10.29.8.js';
import { useState, useEffect, useRef, useMemo } from '../vendor/preact-hooks-10.29.8.js';
import htm from '../vendor/htm-3.1.1.js';

// Tagged templates instead of JSX: no build step, and no eval (htm parses the template once).
export const html = htm.bind(h);
export { h, render, useState, useEffect, useRef, useMemo };
