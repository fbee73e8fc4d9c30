// The media primitives (VideoFrame, VideoFormat, VideoCapture, VideoRender, AudioDevice, AudioBus, ...)
// are part of this module's API.
@_exported import TokKitMedia
