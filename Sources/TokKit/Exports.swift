// The media primitives (VideoFrame, VideoFormat, VideoCapture, VideoRender, AudioDevice, AudioBus, ...)
// are part of this module's API.
@_exported import TokKitMedia

// How the WebRTC layer reaches the network (``WebRTCNegotiator/init(ice:)``).
@_exported import struct TokKitICE.ICEConfiguration
@_exported import struct TokKitICE.ICEServer
@_exported import enum TokKitICE.ICETransportPolicy
@_exported import struct TokKitICE.ICECandidate
@_exported import struct TokKitICE.ICECandidatePair

// The typed errors a ``SessionError/Cause`` carries.
@_exported import enum TokKitSDP.SDPError
@_exported import enum TokKitPeer.PeerError
@_exported import enum TokKitICE.ICEError
@_exported import enum TokKitDTLS.DTLSError
@_exported import enum TokKitSRTP.SRTPError
@_exported import enum TokKitStreaming.StreamingError

// What ``Publisher/statistics`` and ``Subscriber/statistics`` are made of.
@_exported import struct TokKitStreaming.VideoSendStatistics
@_exported import struct TokKitStreaming.AudioSendStatistics
@_exported import struct TokKitStreaming.VideoReceiveStatistics
@_exported import struct TokKitStreaming.AudioReceiveStatistics
@_exported import struct TokKitPeer.TrackStatistics
