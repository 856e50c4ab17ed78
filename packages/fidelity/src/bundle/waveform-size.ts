/** The waveform picture's size, without the image library (the page needs it; rendering must not load sharp). */
export const WAVEFORM_WIDTH = 640;
/** Height of each of the three strips (baseline, candidate, difference). */
export const WAVEFORM_STRIP = 60;
