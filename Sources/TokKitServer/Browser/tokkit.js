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
// which the server picks the layer the media router forwards to it.

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
   * Asks for the simulcast layer that fits `resolution` ({width, height}; null: the full size). In a routed
   * session the media router then forwards that layer to this subscription only; in a relayed one nothing changes.
   * Resolves once the server has the latest preferences; a refusal is emitted as `error` ({error}), never thrown.
   */
  setPreferredResolution(resolution) {
    this.preferredResolution = resolution ? { width: resolution.width, height: resolution.height } : null;
    return this.#sendPreferences();
  }

  /** The preferred frame rate (null: any). Accepted by the server, no effect yet (no temporal layers). */
  setPreferredFrameRate(frameRate) {
    this.preferredFrameRate = frameRate ?? null;
    return this.#sendPreferences();
  }

  /**
   * Sends `subscriberPreferences` one request at a time, as TokKit's SubscriberPreferencesSender: while one is out
   * a setter only marks the values changed, and they are sent again (as they are then) after its reply, so the
   * server ends with the latest. A 1430 (too many routed messages) is retried once after 250 ms.
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
                                           preferredResolution: this.preferredResolution,
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

  async _negotiation({ kind, payload }) {
    if (kind !== "offer") return this.peer.receive(kind, payload);
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
      videoDimensions: info.videoDimensions ?? null, creationTime: info.creationTime,
    };
  }
}
