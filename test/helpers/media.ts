import type { Call } from "./http.js";

/** Creates a media through the admin API (as a company would) and returns its body. */
export async function createMediaViaApi(call: Call, token: string, media: Record<string, unknown>) {
  const response = await call("POST", "/api/media", { token, body: { media: { media_type: "share", ...media } } });
  if (response.status !== 201) throw new Error(`media create failed: ${response.status} ${response.text}`);
  return response.body.media as { id: number; slug: string } & Record<string, unknown>;
}

export async function createPlaylistViaApi(call: Call, token: string, playlist: Record<string, unknown>) {
  const response = await call("POST", "/api/playlists", { token, body: { playlist } });
  if (response.status !== 201) throw new Error(`playlist create failed: ${response.status} ${response.text}`);
  return response.body.playlist as { id: number; slug: string } & Record<string, unknown>;
}
