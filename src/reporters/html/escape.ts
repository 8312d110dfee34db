import { withoutInvalidXmlChars } from '../text.js';

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Text as HTML text or attribute value. Everything a target sends (messages, frames,
 * JSON-RPC lines) goes through here: `</script>` in a frame must stay text.
 */
export function escapeHtml(text: string): string {
  return withoutInvalidXmlChars(text).replace(/[&<>"']/g, (ch) => HTML_ENTITIES[ch] ?? ch);
}

/** At most `max` characters, saying how many were left out (a 10 MB frame must not become a 10 MB page). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more chars)`;
}
