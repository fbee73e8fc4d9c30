// tokkit.js: the TokKit browser client. An ES module, no dependencies, no build step.
//
//   import * as TokKit from "/tokkit.js";
//   const session = TokKit.initSession(apiKey, sessionId);          // server: this page's origin
//   session.on("streamCreated", (e) => session.subscribe(e.stream, element));
//   await session.connect(token);
//   const publisher = await session.publish(element, { audio: true, video: true });
//   await session.signal({ type: "chat", data: "hi" });
//
// Wire protocol: Docs/Protocol.md (WebSocket /signaling). Media is peer to peer, negotiated through the server:
// the publisher OFFERS (sendonly, Opus/111 + VP8/96, one BUNDLE transport), each subscriber ANSWERS (recvonly);
// a `candidate` payload is the SDP attribute value "candidate:..." for m-line 0, `endOfCandidates` is empty.
// Routed sessions (Protocol.md 6.7): the `publish` ack names the stream's upstream (`subscriberId`); the publisher
// offers once, on that id, and the media router (Janus) answers (`from: ""`); subscribers answer the router's offers
// exactly as they answer a publisher's. An `error` 1570 naming a `subscriberId` ends that subscription or upstream.
// A routed upstream sends VP8 simulcast (rids h, m, l: full, half and quarter size, `simulcastEncodings`); a
// subscriber's setPreferredResolution / setPreferredFrameRate send `subscriberPreferences` (Protocol.md 6.3), with
// which the server picks the layer the media router forwards to it. A routed subscriber whose downlink loses packets
// sends its preferences lowered to a smaller layer, and probes back up once the link is clean (`LayerAdaptation`,
// `bandwidthLimitedResolution`).

const PROTOCOL_VERSION = 1;
const PC_CONFIG = { bundlePolicy: "max-bundle", rtcpMuxPolicy: "require", iceServers: [] };

/** A refused request or a failed connect: `code` is the protocol's error code (Docs/Protocol.md, 3). */
export class TokKitError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "TokKitError";
    this.code = code;
  }
}

/** Minimal event emitter: on/off/once, events are plain objects with a `type`. */
class Emitter {
  #handlers = new Map();
  on(type, fn) {
    if (!this.#handlers.has(type)) this.#handlers.set(type, new Set());
    this.#handlers.get(type).add(fn);
    return this;
  }
  off(type, fn) {
    this.#handlers.get(type)?.delete(fn);
    return this;
  }
  once(type, fn) {
    const wrapper = (e) => { this.off(type, wrapper); fn(e); };
    return this.on(type, wrapper);
  }
  emit(type, fields = {}) {
    const event = { type, target: this, ...fields };
    for (const fn of [...(this.#handlers.get(type) ?? [])]) {
      try { fn(event); } catch (err) { console.error(err); }
    }
  }
}

/**
 * Creates a session object (not connected). `url` defaults to the page's origin (http→ws, path /signaling).
 * `iceConfig` (OpenTok's): `customServers` (RTCIceServer objects), `includeServers` ("all": the server's STUN/TURN
 * servers from `connected` then the custom ones; "custom": only the custom ones), `transportPolicy` ("all" or
 * "relay": TURN only).
 */
export function initSession(apiKey, sessionId, { url = globalThis.location?.origin, iceConfig = {} } = {}) {
  return new Session(apiKey, sessionId, url, iceConfig);
}

/** Keeps only `mimeType`'s codecs in a transceiver's preferences (so VP8/96 and Opus/111 are negotiated). */
function preferCodec(transceiver, kind, mimeType) {
  const codecs = RTCRtpSender.getCapabilities(kind)?.codecs ?? [];
  const chosen = codecs.filter((c) => c.mimeType.toLowerCase() === mimeType);
  if (chosen.length > 0 && transceiver.setCodecPreferences) transceiver.setCodecPreferences(chosen);
}

/**
 * The simulcast encodings of a routed upstream's video of `width` x `height` (Docs/Routing.md, "Simulcast"): the
 * layers the session server assumes for the stream's announced size (TokKit's own rule, `SimulcastLayout`): W x H,
 * W/2 x H/2 and W/4 x H/4. Listed full size first with the rids Janus 1.1.2 reads in that order by default ("hml":
 * the first rid is its substream 2, the last its substream 0). Each layer's `maxBitrate` grows with its pixels
 * (about 1.6 bit per pixel per second, 100 kb/s at least, 2 Mb/s at most); at 1280x720 the three (1.94 Mb/s) fit
 * under the room's 2.5 Mb/s cap, above it Janus's REMB caps the sum. Three layers or none: Chromium keeps three
 * only from 960 x 540 pixels up (below, it left out the last encoding, `l`, at 640x480), and the server would then
 * take its substreams for the wrong sizes; so a smaller picture, or one whose quarter-size layer would be under
 * 160 x 90 (the server's rule), gets one encoding (an empty list: no `sendEncodings`).
 */
export function simulcastEncodings(width, height) {
  if (width * height < 960 * 540 || ((width >> 2) & ~1) < 160 || ((height >> 2) & ~1) < 90) return [];
  return ["h", "m", "l"].map((rid, k) => {
    const scale = 2 ** k;
    const pixels = (width / scale) * (height / scale);
    const maxBitrate = Math.round(Math.min(2_000_000, Math.max(100_000, pixels * 1.6)));
    return { rid, active: true, scaleResolutionDownBy: scale, maxBitrate };
  });
}

/**
 * The layer sizes a TokKit publisher sends for a `width` x `height` stream, smallest first (the server's
 * `SimulcastSubstream.layerSizes`, TokKit's `SimulcastLayout`): W/4 x H/4, W/2 x H/2, W x H, each rounded down to
 * even, leaving out layers under 160 x 90. Janus numbers them 0 (smallest) to n − 1.
 */
export function simulcastLayerSizes(width, height) {
  let count = 3;
  while (count > 1 && (((width >> (count - 1)) & ~1) < 160 || ((height >> (count - 1)) & ~1) < 90)) count -= 1;
  return Array.from({ length: count }, (_, k) => k === count - 1
    ? { width, height }
    : { width: (width >> (count - 1 - k)) & ~1, height: (height >> (count - 1 - k)) & ~1 });
}

/** The largest of `sizes` inside `preferred` ({width, height}; the smallest when none fits, the largest for null). */
function layerCap(preferred, sizes) {
  if (!preferred) return Math.max(sizes.length - 1, 0);
  return Math.max(sizes.findLastIndex((s) => s.width <= preferred.width && s.height <= preferred.height), 0);
}

/**
 * Which simulcast layer a routed subscriber's downlink can carry: the browser's copy of TokKit's
 * `SubscriberLayerAdaptation`, with the same rules and thresholds (Docs/Routing.md, "Simulcast: the downlink lowers
 * the layer"). Pure: counters and times in (`now` in milliseconds, e.g. `performance.now()`), "the link's ceiling is
 * now layer k / no limit" out; no clock, no I/O.
 *
 * Layers are numbered 0 (the smallest) to `layers − 1` (the full size), as Janus's substreams. The preference allows
 * up to `cap`, the link up to `ceiling` (null: no limit found); the subscriber gets `layer`, the smaller.
 * - Lowering: a sample (the video's cumulative RTP packets received and lost, about once a second) in which at least
 *   `lossToLower` (8 %) of the packets expected were lost, with at least `minimumPackets` (15) expected, sets the
 *   ceiling one layer below the current one; so does a stalled sample (those packets arrived, not one frame was
 *   decoded after frames had been). Samples within `settleMs` (2 s) of a change are ignored.
 * - Raising (probing): after `hold` of clean samples (at most `lossClean`, 2 %, lost; 6 s at first) and as long since
 *   the last change, the ceiling goes up one layer; one at or above the top lifts the limit. A probe that loses
 *   packets within `probeWindowMs` (5 s) goes back down and doubles `hold` (up to 60 s); one that stays clean that
 *   long resets it.
 * - Never above the cap; a lower cap wins at once. Counters that decrease (a new peer connection) start a new
 *   baseline; after `stop()` every input returns null.
 * `preference()` and `sample()` return `{ limit }` (a layer, or null: no limit) when the ceiling changed, else null.
 */
export class LayerAdaptation {
  static defaults = Object.freeze({ lossToLower: 0.08, lossClean: 0.02, minimumPackets: 15, settleMs: 2000,
                                    initialHoldMs: 6000, maximumHoldMs: 60000, probeWindowMs: 5000 });
  layers = 1;
  cap = 0;
  ceiling = null;
  stopped = false;
  #last = null; // the previous sample's {received, lost, decoded}
  #changed = null; // when the ceiling last changed
  #cleanSince = null; // since when every sample was clean
  #probing = null; // when the current probe started

  constructor(settings = {}) {
    this.settings = { ...LayerAdaptation.defaults, ...settings };
    this.hold = this.settings.initialHoldMs;
  }

  /** The layer the subscriber gets: the preference's cap, lowered to the link's ceiling. */
  get layer() { return Math.min(this.cap, this.ceiling ?? this.layers - 1); }

  /** The stream has `layers` layers (1...3) and the preference allows up to `cap`. */
  preference(layers, cap) {
    if (this.stopped) return null;
    this.layers = Math.min(Math.max(layers, 1), 3);
    this.cap = Math.min(Math.max(cap, 0), this.layers - 1);
    if (this.ceiling === null || this.ceiling < this.layers - 1) return null;
    this.ceiling = null;
    return { limit: null };
  }

  /** A sample of the video's cumulative `received` and `lost` packets and `decoded` frames (null: unknown) at `now`. */
  sample({ received, lost, decoded = null }, now) {
    if (this.stopped) return null;
    const previous = this.#last;
    this.#last = { received, lost, decoded };
    if (previous === null || received < previous.received) {
      this.#cleanSince = null; // first sample, or new counters (a new peer connection): a new baseline
      return null;
    }
    const gotten = received - previous.received;
    const missed = Math.max(lost - previous.lost, 0);
    if (this.#changed !== null && now - this.#changed < this.settings.settleMs) return null;
    const expected = gotten + missed;
    if (expected < this.settings.minimumPackets) return null;
    const share = missed / expected;
    const stalled = decoded !== null && decoded === previous.decoded && (previous.decoded ?? 0) > 0;
    if (share >= this.settings.lossToLower || stalled) return this.#lower(now);
    if (share > this.settings.lossClean) {
      this.#cleanSince = null;
      return null;
    }
    if (this.#cleanSince === null) this.#cleanSince = now;
    if (this.#probing !== null && now - this.#probing >= this.settings.probeWindowMs) {
      this.#probing = null; // the probe held
      this.hold = this.settings.initialHoldMs;
    }
    return this.#raiseIfDue(now);
  }

  /** The subscriber left: nothing more is decided. */
  stop() {
    this.stopped = true;
    this.#probing = null;
    this.#cleanSince = null;
  }

  #lower(now) {
    this.#cleanSince = null;
    if (this.#probing !== null && now - this.#probing < this.settings.probeWindowMs) {
      this.hold = Math.min(this.hold * 2, this.settings.maximumHoldMs); // the probe failed: wait longer
    }
    this.#probing = null;
    const current = this.layer;
    if (current <= 0) return null;
    this.ceiling = current - 1;
    this.#changed = now;
    return { limit: this.ceiling };
  }

  #raiseIfDue(now) {
    if (this.ceiling === null || this.ceiling >= this.cap || this.#cleanSince === null) return null;
    if (now - this.#cleanSince < this.hold) return null;
    if (this.#changed !== null && now - this.#changed < this.hold) return null;
    const next = this.ceiling + 1;
    this.ceiling = next >= this.layers - 1 ? null : next;
    this.#changed = now;
    this.#probing = now;
    this.#cleanSince = null;
    return { limit: this.ceiling };
  }
}

/** One RTCPeerConnection for one subscription, with trickle ICE over the session's relay. */
class Peer {
  #pending = []; // remote candidates that arrived before the remote description
  #remoteSet = false;

  constructor(session, streamId, subscriberId) {
    this.session = session;
    this.streamId = streamId;
    this.subscriberId = subscriberId;
    this.pc = new RTCPeerConnection(session._peerConfig());
    this.pc.onicecandidate = ({ candidate }) => {
      if (candidate === null) this.send("endOfCandidates", "");
      else if (candidate.candidate && (candidate.sdpMLineIndex ?? 0) === 0) this.send("candidate", candidate.candidate);
    };
  }

  send(kind, payload) {
    this.session._send({ type: "negotiation", streamId: this.streamId, subscriberId: this.subscriberId, kind, payload });
  }

  async setRemote(type, sdp) {
    await this.pc.setRemoteDescription({ type, sdp });
    this.#remoteSet = true;
    for (const c of this.#pending.splice(0)) await this.#addCandidate(c);
  }

  async receive(kind, payload) {
    if (kind === "candidate" || kind === "endOfCandidates") {
      if (this.#remoteSet) await this.#addCandidate(payload);
      else this.#pending.push(payload);
    }
  }

  async #addCandidate(payload) {
    try {
      await this.pc.addIceCandidate({ candidate: payload, sdpMLineIndex: 0 });
    } catch (err) {
      if (payload !== "") this.session._log("ignored candidate", payload, String(err));
    }
  }

  close() {
    this.pc.onicecandidate = null;
    this.pc.close();
  }
}

/**
 * The local camera/microphone, published as a stream. Opens one peer connection (offerer, sendonly) per
 * subscriber. Events: streamCreated, streamDestroyed, error.
 */
class Publisher extends Emitter {
  stream = null; // the Stream once the server created it
  degradationPreference = null; // RTCRtpSendParameters.degradationPreference for the video, or the browser's
  simulcast = true; // whether a routed upstream sends simulcast (publish option `simulcast`)
  #session;
  #peers = new Map(); // subscriberId → Peer

  constructor(session, mediaStream, element) {
    super();
    this.#session = session;
    this.mediaStream = mediaStream;
    this.element = element;
  }

  get streamId() { return this.stream?.streamId; }
  get audioTrack() { return this.mediaStream.getAudioTracks()[0] ?? null; }
  get videoTrack() { return this.mediaStream.getVideoTracks()[0] ?? null; }

  /** Mutes/unmutes the sent audio (track.enabled) and tells everyone through the stream's `hasAudio`. */
  publishAudio(enabled) { return this.#toggle(this.audioTrack, "hasAudio", enabled); }
  /** Same for video (`hasVideo`); a disabled video track sends black frames. */
  publishVideo(enabled) { return this.#toggle(this.videoTrack, "hasVideo", enabled); }

  async #toggle(track, property, enabled) {
    if (track) track.enabled = enabled;
    if (this.streamId) await this.#session._request({ type: "updateStream", streamId: this.streamId, [property]: enabled });
  }

  /**
   * The stream's upstream in a routed session (its id from the `publish` ack, Protocol.md 6.7), or null when the
   * stream is relayed (one peer connection per subscriber).
   */
  upstreamId = null;

  /**
   * Routed: offers once, on the upstream `upstreamId`, to the media router (whose answer comes `from: ""`).
   * Subscribers are the router's business: no `subscribe` ever reaches this publisher.
   */
  async _routed(upstreamId) {
    this.upstreamId = upstreamId;
    await this.#offer({ subscriberId: upstreamId, from: "", subscribeToAudio: true, subscribeToVideo: true,
                        since: null });
  }

  /** The media router failed the upstream (error 1570): its peer connection is closed, the media reaches nobody. */
  _upstreamFailed(error) {
    this._unsubscribed(this.upstreamId);
    this.emit("error", { error, subscriberId: this.upstreamId });
  }

  /** The server says a connection subscribed: offer to it. */
  async _subscribed({ subscriberId, from, subscribeToAudio = true, subscribeToVideo = true }) {
    await this.#offer({ subscriberId, from, subscribeToAudio, subscribeToVideo, since: null });
  }

  /**
   * Creates the peer of one subscription and sends its offer. After media has flowed, a path that fails (or stays
   * disconnected for 2.5 s) is restarted the way TokKit's own peers do it: a new peer connection (fresh ICE
   * credentials, a new DTLS handshake) and a new offer, again every 5 s while the outage lasts, for at most 30 s.
   */
  async #offer(subscription) {
    const { subscriberId, from, subscribeToAudio, subscribeToVideo } = subscription;
    this.#peers.get(subscriberId)?.close();
    const peer = new Peer(this.#session, this.streamId, subscriberId);
    peer.subscription = subscription; // for a restart the server asks for (_mediaRestart)
    this.#peers.set(subscriberId, peer);
    // Only a routed upstream is simulcast: a relayed subscriber gets one encoding, as before.
    const simulcast = subscriberId === this.upstreamId && this.simulcast;
    for (const [kind, track, wanted, mime] of [
      ["audio", this.audioTrack, subscribeToAudio, "audio/opus"],
      ["video", this.videoTrack, subscribeToVideo, "video/vp8"],
    ]) {
      if (!track || !wanted) continue;
      const init = { direction: "sendonly", streams: [this.mediaStream] };
      if (kind === "video" && simulcast) {
        const { width = 0, height = 0 } = track.getSettings();
        const encodings = simulcastEncodings(width, height);
        if (encodings.length > 0) init.sendEncodings = encodings;
      }
      const transceiver = peer.pc.addTransceiver(track, init);
      preferCodec(transceiver, kind, mime);
    }
    let lostTimer = null;
    peer.pc.onconnectionstatechange = () => {
      const state = peer.pc.connectionState;
      if (state === "connected") {
        subscription.since = null;
        clearTimeout(lostTimer);
        lostTimer = null;
        subscription.everConnected = true;
      } else if (subscription.everConnected && (state === "disconnected" || state === "failed") && !lostTimer) {
        lostTimer = setTimeout(() => this.#restart(subscription, peer), state === "failed" ? 0 : 2500);
      }
    };
    try {
      await peer.pc.setLocalDescription(await peer.pc.createOffer());
      const video = peer.pc.getTransceivers().find((t) => t.sender.track?.kind === "video");
      if (video && this.degradationPreference) {
        const parameters = video.sender.getParameters();
        parameters.degradationPreference = this.degradationPreference;
        await video.sender.setParameters(parameters);
      }
      peer.send("offer", peer.pc.localDescription.sdp);
      this.#session._log("offer sent to", from, "for", subscriberId);
    } catch (err) {
      this.emit("error", { error: err, subscriberId });
    }
  }

  /** Restarts a subscription whose path was lost (see #offer); re-offers every 5 s until it connects or 30 s pass. */
  async #restart(subscription, peer) {
    if (this.#peers.get(subscription.subscriberId) !== peer) return;  // replaced or ended meanwhile
    subscription.since ??= Date.now();
    if (Date.now() - subscription.since > 30000) return;  // the subscriber gives up and unsubscribes
    this.#session._log("restarting the media of", subscription.subscriberId);
    await this.#offer(subscription);
    const next = this.#peers.get(subscription.subscriberId);
    setTimeout(() => {
      if (next && this.#peers.get(subscription.subscriberId) === next && next.pc.connectionState !== "connected") {
        this.#restart(subscription, next);
      }
    }, 5000);
  }

  /**
   * Routed (Protocol.md 6.7 step 5, `mediaRestart`): the media router lost the upstream's path. Restarts it now
   * through the same path as a lost connection, but only if the current peer connection made the offer whose ICE
   * ufrag is `iceUfrag` (a stale or duplicate message, about a peer already replaced, does nothing).
   */
  _mediaRestart({ subscriberId, iceUfrag }) {
    const peer = this.#peers.get(subscriberId);
    if (!peer || subscriberId !== this.upstreamId) return;
    const ufrag = /^a=ice-ufrag:(.*)$/m.exec(peer.pc.localDescription?.sdp ?? "")?.[1]?.trim();
    if (!ufrag || ufrag !== iceUfrag) return;
    this.#session._log("the media router asks to restart", subscriberId);
    this.#restart(peer.subscription, peer);
  }

  async _negotiation({ subscriberId, kind, payload }) {
    const peer = this.#peers.get(subscriberId);
    if (!peer) return;
    if (kind === "answer") await peer.setRemote("answer", payload);
    else await peer.receive(kind, payload);
  }

  _unsubscribed(subscriberId) {
    this.#peers.get(subscriberId)?.close();
    this.#peers.delete(subscriberId);
  }

  /** Peer connections by subscriber id (e.g. for getStats). */
  get peerConnections() { return new Map([...this.#peers].map(([id, p]) => [id, p.pc])); }

  _destroy(reason) {
    for (const peer of this.#peers.values()) peer.close();
    this.#peers.clear();
    for (const track of this.mediaStream.getTracks()) track.stop();
    if (this.element) this.element.srcObject = null;
    if (this.stream) this.emit("streamDestroyed", { stream: this.stream, reason });
  }
}

/**
 * A remote stream received over one peer connection (answerer, recvonly). Events: connected, error, and when the
 * path is lost and restored: disconnected (media stopped; the publisher restarts the connection) then connected
 * again (OpenTok's subscriber events).
 */
class Subscriber extends Emitter {
  #session;
  #everConnected = false;
  #lost = false;
  /** The preferred resolution ({width, height}) or null (OpenTok's `setPreferredResolution`). */
  preferredResolution = null;
  /** The preferred frame rate or null (OpenTok's `setPreferredFrameRate`). */
  preferredFrameRate = null;
  #preferences = "idle"; // "idle" | "sending" | "changed" (sending, and set again since the request was made)
  #adaptation = new LayerAdaptation(); // the downlink's layer limit (routed subscriptions)
  #layerSizes = []; // the stream's layer sizes, smallest first (empty: unknown size, no adaptation)
  #sampling = null; // the downlink sampling interval, from the media router's first offer until _destroy
  #sampleBusy = false;

  constructor(session, stream, subscriberId, element) {
    super();
    this.#session = session;
    this.stream = stream;
    this.subscriberId = subscriberId;
    this.element = element;
    this.#attach(new Peer(session, stream.streamId, subscriberId));
  }

  #attach(peer) {
    this.peer = peer;
    this.mediaStream = new MediaStream();
    peer.pc.ontrack = ({ track }) => {
      this.mediaStream.addTrack(track);
      if (this.element) this.element.srcObject = this.mediaStream;
    };
    peer.pc.onconnectionstatechange = () => {
      if (this.peer !== peer) return;
      const state = peer.pc.connectionState;
      if (state === "connected") {
        this.#everConnected = true;
        this.#lost = false;
        this.emit("connected");
      } else if ((state === "disconnected" || state === "failed") && this.#everConnected) {
        this.#lose();
      } else if (state === "failed") {
        this.emit("error", { error: new Error("ICE/DTLS failed") });
      }
    };
  }

  #lose() {
    if (this.#lost) return;
    this.#lost = true;
    this.emit("disconnected");
  }

  get pc() { return this.peer.pc; }
  getStats() { return this.peer.pc.getStats(); }

  /**
   * The size ({width, height}) this routed subscription's downlink limits it to, below its preferred resolution;
   * null when not limited (the Swift SDK's `Subscriber.bandwidthLimitedResolution`). A subscriber whose video loses
   * packets (or stops decoding while packets arrive) asks the server for the next smaller simulcast layer, and after
   * a clean period (6 s, doubling after each attempt that lost packets again, up to 60 s) tries the next larger one,
   * never above `preferredResolution` (`LayerAdaptation`; Docs/Routing.md, "Simulcast: the downlink lowers the layer").
   */
  get bandwidthLimitedResolution() {
    const ceiling = this.#adaptation.ceiling;
    if (ceiling === null || ceiling >= this.#adaptation.cap || ceiling >= this.#layerSizes.length) return null;
    return { ...this.#layerSizes[ceiling] };
  }

  /** The resolution asked of the server: the preference, lowered to the downlink's limit when it is smaller. */
  #effectiveResolution() {
    const ceiling = this.#adaptation.ceiling;
    if (ceiling === null || ceiling >= this.#layerSizes.length
        || ceiling >= layerCap(this.preferredResolution, this.#layerSizes)) return this.preferredResolution;
    return { ...this.#layerSizes[ceiling] };
  }

  /** Hands the stream's layer sizes and the preference to the machine; true when that lifted the link's limit. */
  #updateAdaptation() {
    const size = this.stream.videoDimensions;
    this.#layerSizes = size ? simulcastLayerSizes(size.width, size.height) : [];
    return this.#adaptation.preference(Math.max(this.#layerSizes.length, 1),
                                       layerCap(this.preferredResolution, this.#layerSizes)) !== null;
  }

  /** The media router's first offer: a routed subscription, whose layer follows its downlink from now on. */
  #startAdapting() {
    if (this.#sampling !== null || this.#adaptation.stopped) return;
    this.#updateAdaptation();
    this.#sampling = setInterval(() => this.#sampleDownlink(), 1000);
  }

  /** One sample of the video's receive counters (getStats inbound-rtp); sends the preferences when the limit moved. */
  async #sampleDownlink() {
    if (this.#sampleBusy) return;
    this.#sampleBusy = true;
    try {
      let video = null;
      for (const s of (await this.peer.pc.getStats()).values()) {
        if (s.type === "inbound-rtp" && s.kind === "video") video = s;
      }
      if (video === null || this.#adaptation.stopped) return;
      const lifted = this.#updateAdaptation(); // the stream's announced size may have changed
      const action = this.#adaptation.sample({ received: video.packetsReceived ?? 0, lost: video.packetsLost ?? 0,
                                               decoded: video.framesDecoded ?? null }, performance.now());
      if (action !== null) this.#session._log("downlink limit", this.subscriberId, action.limit);
      if (action !== null || lifted) this.#sendPreferences();
    } catch {
      // A closed peer connection: the next sample (or _destroy) decides.
    } finally {
      this.#sampleBusy = false;
    }
  }

  /**
   * Asks for the simulcast layer that fits `resolution` ({width, height}; null: the full size). In a routed
   * session the media router then forwards that layer to this subscription only; in a relayed one nothing changes.
   * Resolves once the server has the latest preferences; a refusal is emitted as `error` ({error}), never thrown.
   */
  setPreferredResolution(resolution) {
    this.preferredResolution = resolution ? { width: resolution.width, height: resolution.height } : null;
    this.#updateAdaptation();
    return this.#sendPreferences();
  }

  /**
   * The preferred frame rate (null: any). In a routed session the media router forwards only the temporal layers it
   * needs (the publisher taken as 30 fps: at most 7.5 a quarter, at most 15 half the frames); relayed: no effect.
   */
  setPreferredFrameRate(frameRate) {
    this.preferredFrameRate = frameRate ?? null;
    return this.#sendPreferences();
  }

  /**
   * Sends `subscriberPreferences` one request at a time, as TokKit's SubscriberPreferencesSender: while one is out
   * a setter only marks the values changed, and they are sent again (as they are then) after its reply, so the
   * server ends with the latest. `preferredResolution` goes lowered to the downlink's limit, if any. A 1430 (too
   * many routed messages waiting, Protocol.md 6.7) is retried once after 250 ms; a second 1430 or any other refusal
   * is emitted as `error`.
   */
  async #sendPreferences() {
    if (this.#preferences !== "idle") { this.#preferences = "changed"; return this.#preferencesSent; }
    this.#preferences = "sending";
    let done;
    this.#preferencesSent = new Promise((resolve) => { done = resolve; });
    try {
      do {
        this.#preferences = "sending";
        for (let retried = false; ;) {
          try {
            await this.#session._request({ type: "subscriberPreferences", subscriberId: this.subscriberId,
                                           preferredResolution: this.#effectiveResolution(),
                                           preferredFrameRate: this.preferredFrameRate });
          } catch (error) {
            if (error.code === 1430 && !retried) {
              retried = true;
              await new Promise((r) => setTimeout(r, 250));
              continue;
            }
            // Not connected any more or the subscription ended: nothing to report.
            if (error.code !== 1010 && this.#session._hasSubscriber(this)) this.emit("error", { error });
          }
          break;
        }
      } while (this.#preferences === "changed");
    } finally {
      this.#preferences = "idle";
      done();
    }
  }
  #preferencesSent = Promise.resolve();

  async _negotiation({ kind, payload, from }) {
    if (kind !== "offer") return this.peer.receive(kind, payload);
    if (from === "") this.#startAdapting(); // the media router offers: a routed subscription
    if (this.peer.pc.remoteDescription) {
      // A new offer on a negotiated subscription: the publisher restarts it. Answer with a new peer connection.
      this.peer.close();
      this.#attach(new Peer(this.#session, this.stream.streamId, this.subscriberId));
      if (this.#everConnected) this.#lose();
    }
    try {
      await this.peer.setRemote("offer", payload);
      await this.peer.pc.setLocalDescription(await this.peer.pc.createAnswer());
      this.peer.send("answer", this.peer.pc.localDescription.sdp);
    } catch (err) {
      this.emit("error", { error: err });
    }
  }

  _destroy() {
    clearInterval(this.#sampling);
    this.#adaptation.stop();
    this.peer.close();
    if (this.element) this.element.srcObject = null;
  }
}

/**
 * One client's membership in a session. Events: connected, connectionCreated, connectionDestroyed,
 * streamCreated, streamDestroyed, streamPropertyChanged, signal and signal:<type>, muteForced, exception,
 * sessionDisconnected. Streams of this client's own publishers are announced on the Publisher, not here.
 */
class Session extends Emitter {
  connection = null; // this client's Connection once connected
  connections = new Map(); // connectionId → {connectionId, creationTime, data}, this client included
  streams = new Map(); // streamId → Stream, this client's included
  #ws = null;
  #rid = 0;
  #requests = new Map(); // rid → {resolve, reject}
  #heartbeat = null;
  #publishers = new Set();
  #subscribers = new Map(); // subscriberId → Subscriber
  #iceConfig;
  #serverIceServers = []; // from the last `connected` (fresh TURN credentials each time)

  constructor(apiKey, sessionId, url, iceConfig = {}) {
    super();
    this.apiKey = apiKey;
    this.sessionId = sessionId;
    this.url = url;
    this.#iceConfig = iceConfig;
    this.state = "disconnected"; // → connecting → connected → disconnecting → disconnected
  }

  /** Opens the signaling socket and joins with `token`; resolves once connected, rejects with TokKitError. */
  connect(token) {
    if (this.state !== "disconnected") return Promise.reject(new TokKitError(1015, `cannot connect while ${this.state}`));
    this.state = "connecting";
    const wsURL = new URL("/signaling", this.url);
    wsURL.protocol = wsURL.protocol === "https:" ? "wss:" : "ws:";
    return new Promise((resolve, reject) => {
      const ws = (this.#ws = new WebSocket(wsURL));
      this._connecting = { resolve, reject };
      ws.onopen = () => ws.send(JSON.stringify({
        type: "connect", version: PROTOCOL_VERSION, apiKey: this.apiKey, sessionId: this.sessionId, token,
      }));
      ws.onmessage = (m) => this.#receive(m.data);
      ws.onclose = (e) => this.#closed(e);
    });
  }

  /** Leaves: unpublishes, drops every subscription, resolves once the socket closed. */
  disconnect() {
    if (this.state === "disconnected") return Promise.resolve();
    const closed = new Promise((resolve) => this.#ws.addEventListener("close", () => resolve(), { once: true }));
    if (this.state === "connected") this._send({ type: "disconnect" });
    else this.#ws.close();
    this.state = "disconnecting";
    return closed;
  }

  /**
   * Captures camera/microphone (getUserMedia) and publishes them. `element`: a <video> (or its id) for the
   * preview, optional. Resolves with the Publisher once the server created the stream. `width`, `height`,
   * `frameRate`: the camera constraints (ideal values). `simulcast` (default true): in a routed session the upstream
   * sends VP8 simulcast (`simulcastEncodings`); false sends one encoding. Relayed subscriptions never simulcast.
   */
  async publish(element, { audio = true, video = true, name = "", width = 640, height = 480, frameRate = null,
                           degradationPreference = null, simulcast = true } = {}) {
    if (this.state !== "connected") throw new TokKitError(1010, "not connected");
    if (typeof element === "string") element = document.getElementById(element);
    const media = await navigator.mediaDevices.getUserMedia({
      audio: audio,
      video: video ? { width: { ideal: width }, height: { ideal: height },
                       ...(frameRate ? { frameRate: { ideal: frameRate } } : {}) } : false,
    });
    const publisher = new Publisher(this, media, element ?? null);
    // "maintain-resolution" keeps the camera's size when bandwidth or CPU is short (frames drop instead).
    publisher.degradationPreference = degradationPreference;
    publisher.simulcast = simulcast;
    if (element) { element.muted = true; element.srcObject = media; }
    const settings = publisher.videoTrack?.getSettings() ?? {};
    const ack = await this._request({
      type: "publish", name, hasAudio: Boolean(publisher.audioTrack), hasVideo: Boolean(publisher.videoTrack),
      videoType: "camera",
      ...(settings.width ? { videoDimensions: { width: settings.width, height: settings.height } } : {}),
      // The camera's rate, so that the server maps subscribers' preferred frame rates onto the right temporal layer.
      ...(Number.isFinite(settings.frameRate) && settings.frameRate >= 1
        ? { frameRate: Math.min(120, Math.round(settings.frameRate)) } : {}),
    }).catch((error) => { publisher._destroy("unpublished"); throw error; });
    // The server sends `streamCreated` right after this ack; #streamCreated completes the stream then.
    publisher.stream = { streamId: ack.streamId };
    this.#publishers.add(publisher);
    // Routed session (Protocol.md 6.7): one upload, to the media router, negotiated on the upstream's id.
    if (typeof ack.subscriberId === "string") publisher._routed(ack.subscriberId);
    return publisher;
  }

  /** Stops publishing: the server ends the stream for everyone. */
  async unpublish(publisher) {
    this.#publishers.delete(publisher);
    publisher._destroy("unpublished");
    if (this.state === "connected" && publisher.streamId) await this._request({ type: "unpublish", streamId: publisher.streamId });
  }

  /** Subscribes to a remote `stream`; media goes to `element` (a <video> or its id). Resolves with the Subscriber. */
  async subscribe(stream, element, { subscribeToAudio = true, subscribeToVideo = true } = {}) {
    if (typeof element === "string") element = document.getElementById(element);
    const ack = await this._request({ type: "subscribe", streamId: stream.streamId, subscribeToAudio, subscribeToVideo });
    // Registered before any later message is handled: the offer always follows the ack.
    const subscriber = new Subscriber(this, stream, ack.subscriberId, element ?? null);
    this.#subscribers.set(ack.subscriberId, subscriber);
    return subscriber;
  }

  async unsubscribe(subscriber) {
    this.#subscribers.delete(subscriber.subscriberId);
    subscriber._destroy();
    if (this.state === "connected") await this._request({ type: "unsubscribe", subscriberId: subscriber.subscriberId });
  }

  /** Sends a signal to everyone (this client included) or to `to` (a Connection or its id). */
  signal({ type = "", data = "", to } = {}) {
    const target = typeof to === "string" ? to : to?.connectionId;
    return this._request({ type: "signal", signalType: type, data, ...(target ? { to: target } : {}) });
  }

  // MARK: Wire

  _send(message) {
    if (this.#ws?.readyState === WebSocket.OPEN) this.#ws.send(JSON.stringify(message));
  }

  /** Sends `message` with a request id; resolves with the ack, rejects with TokKitError. */
  _request(message) {
    if (this.state !== "connected") return Promise.reject(new TokKitError(1010, "not connected"));
    const rid = ++this.#rid;
    return new Promise((resolve, reject) => {
      this.#requests.set(rid, { resolve, reject });
      this._send({ ...message, rid });
    });
  }

  _log(...args) {
    if (this.debug) console.log("tokkit:", ...args);
  }

  #receive(text) {
    let m;
    try { m = JSON.parse(text); } catch { return; }
    switch (m.type) {
      case "connected": return this.#connected(m);
      case "ack": return this.#settle(m.rid, (r) => r.resolve(m));
      case "error": return this.#error(m);
      case "connectionCreated": {
        const c = this.#connectionFrom(m.connection);
        this.connections.set(c.connectionId, c);
        return this.emit("connectionCreated", { connection: c });
      }
      case "connectionDestroyed": {
        const c = this.connections.get(m.connection.id) ?? this.#connectionFrom(m.connection);
        this.connections.delete(c.connectionId);
        if (c.connectionId !== this.connection?.connectionId) this.emit("connectionDestroyed", { connection: c, reason: m.reason });
        return;
      }
      case "streamCreated": return this.#streamCreated(m.stream);
      case "streamDestroyed": return this.#streamDestroyed(m.stream.id, m.reason);
      case "streamPropertyChanged": {
        const s = this.streams.get(m.stream.id);
        if (!s) return;
        Object.assign(s, this.#streamFrom(m.stream));
        return this.emit("streamPropertyChanged", { stream: s, changedProperties: m.changed, forced: m.forced });
      }
      case "signal": {
        const from = m.from ? (this.connections.get(m.from) ?? { connectionId: m.from }) : null;
        const event = { signalType: m.signalType, data: m.data, from };
        this.emit("signal", event);
        return this.emit(`signal:${m.signalType}`, event);
      }
      case "subscribe": return this.#publisherOf(m.streamId)?._subscribed(m);
      case "unsubscribe": return this.#publisherOf(m.streamId)?._unsubscribed(m.subscriberId);
      case "negotiation": {
        const subscriber = this.#subscribers.get(m.subscriberId);
        return subscriber ? subscriber._negotiation(m) : this.#publisherOf(m.streamId)?._negotiation(m);
      }
      case "mediaRestart": return this.#publisherOf(m.streamId)?._mediaRestart(m);
      case "muteForced": {
        const p = this.#publisherOf(m.streamId);
        if (p?.audioTrack) p.audioTrack.enabled = false;
        return this.emit("muteForced", { streamId: m.streamId });
      }
      // OpenTok's archive events: `id` and `name` (started), `id` (stopped).
      case "archiveStarted": return this.emit("archiveStarted", { id: m.archiveId, name: m.name ?? "" });
      case "archiveStopped": return this.emit("archiveStopped", { id: m.archiveId });
      default: return; // pong, and anything newer than this client
    }
  }

  /** The RTCPeerConnection configuration of this session's peers: the server's ICE servers and the iceConfig. */
  _peerConfig() {
    const { customServers = [], includeServers = "all", transportPolicy = "all" } = this.#iceConfig;
    const server = includeServers === "custom" ? [] : this.#serverIceServers;
    return { ...PC_CONFIG, iceServers: [...server, ...customServers], iceTransportPolicy: transportPolicy };
  }

  #connected(m) {
    this.state = "connected";
    this.#serverIceServers = m.iceServers ?? [];
    this.connection = this.#connectionFrom(m.connection);
    this.connections.set(this.connection.connectionId, this.connection);
    for (const c of m.connections) this.connections.set(c.id, this.#connectionFrom(c));
    this.#heartbeat = setInterval(() => this._send({ type: "ping" }), m.heartbeatInterval);
    this._connecting?.resolve(this);
    this._connecting = null;
    this.emit("connected", { connection: this.connection });
    for (const c of this.connections.values()) {
      if (c !== this.connection) this.emit("connectionCreated", { connection: c });
    }
    for (const s of m.streams) this.#streamCreated(s);
  }

  #streamCreated(info) {
    const publisher = this.#publisherOf(info.id);
    const stream = Object.assign(publisher?.stream ?? {}, this.#streamFrom(info));
    this.streams.set(stream.streamId, stream);
    if (publisher) publisher.emit("streamCreated", { stream });
    else if (stream.connection.connectionId !== this.connection?.connectionId) this.emit("streamCreated", { stream });
  }

  #streamDestroyed(streamId, reason) {
    const stream = this.streams.get(streamId);
    this.streams.delete(streamId);
    for (const [id, sub] of this.#subscribers) {
      if (sub.stream.streamId === streamId) { sub._destroy(); this.#subscribers.delete(id); }
    }
    const publisher = this.#publisherOf(streamId);
    if (publisher) { this.#publishers.delete(publisher); publisher._destroy(reason); }
    else if (stream) this.emit("streamDestroyed", { stream, reason });
  }

  #error(m) {
    const error = new TokKitError(m.code, m.message);
    if (m.rid !== undefined && this.#requests.has(m.rid)) return this.#settle(m.rid, (r) => r.reject(error));
    if (m.rid === undefined && typeof m.subscriberId === "string" && this.#mediaFailed(m.subscriberId, error)) return;
    if (this._connecting) { this._connecting.reject(error); this._connecting = null; return; }
    this.emit("exception", { error });
  }

  /**
   * Routed media failed (error 1570 naming `subscriberId`, Protocol.md 6.7): a subscription of this client is
   * dropped (and unsubscribed), an upstream of its publishers closed; either emits `error` on its object.
   * False when the id is neither.
   */
  #mediaFailed(subscriberId, error) {
    const subscriber = this.#subscribers.get(subscriberId);
    if (subscriber) {
      this.#subscribers.delete(subscriberId);
      subscriber._destroy();
      subscriber.emit("error", { error });
      this._request({ type: "unsubscribe", subscriberId }).catch(() => {});
      return true;
    }
    for (const p of this.#publishers) {
      if (p.upstreamId === subscriberId) { p._upstreamFailed(error); return true; }
    }
    return false;
  }

  #settle(rid, fn) {
    const request = this.#requests.get(rid);
    this.#requests.delete(rid);
    if (request) fn(request);
  }

  #closed(event) {
    clearInterval(this.#heartbeat);
    const wasConnected = this.connection !== null;
    this.state = "disconnected";
    this._connecting?.reject(new TokKitError(1006, `socket closed (${event.code})`));
    this._connecting = null;
    for (const r of this.#requests.values()) r.reject(new TokKitError(1010, "disconnected"));
    this.#requests.clear();
    for (const p of this.#publishers) p._destroy("clientDisconnected");
    this.#publishers.clear();
    for (const s of this.#subscribers.values()) s._destroy();
    this.#subscribers.clear();
    this.connections.clear();
    this.streams.clear();
    this.connection = null;
    if (wasConnected) this.emit("sessionDisconnected", { code: event.code });
  }

  /** Whether `subscriber` is still one of this session's subscriptions. */
  _hasSubscriber(subscriber) { return this.#subscribers.get(subscriber.subscriberId) === subscriber; }

  #publisherOf(streamId) {
    for (const p of this.#publishers) if (p.streamId === streamId) return p;
    return null;
  }

  #connectionFrom(info) {
    return { connectionId: info.id, creationTime: info.creationTime, data: info.data };
  }

  #streamFrom(info) {
    return {
      streamId: info.id,
      connection: this.connections.get(info.connectionId) ?? { connectionId: info.connectionId },
      name: info.name, hasAudio: info.hasAudio, hasVideo: info.hasVideo, videoType: info.videoType,
      videoDimensions: info.videoDimensions ?? null, frameRate: info.frameRate ?? null,
      creationTime: info.creationTime,
    };
  }
}
