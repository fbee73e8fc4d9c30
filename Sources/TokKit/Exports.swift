// The media primitives (VideoFrame, VideoFormat, VideoCapture, VideoRender, AudioDevice, AudioBus, ...)
// are part of this module's API.
@_exported import TokKitMedia

// How the WebRTC layer reaches the network (``WebRTCNegotiator/init(ice:)``).
@_exported import struct TokKitICE.IceConfiguration
@_exported import struct TokKitICE.IceServer
@_exported import enum TokKitICE.IceTransportPolicy
