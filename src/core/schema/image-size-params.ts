import Type from 'typebox';

/** How a shot is brought to `image_width` × `image_height`: sharp's `fit`, as CSS `object-fit` names them. */
export const IMAGE_FITS = ['cover', 'contain', 'inside', 'fill'] as const;
export type ImageFit = (typeof IMAGE_FITS)[number];

/** Largest side of a resized image: a 4x shot of a 1920 px wide viewport fits. */
export const LARGEST_IMAGE_SIDE = 8192;

/**
 * The size of an image output when it is not the shot's own (thumbnails): resized by sharp after
 * the capture. Part of the one request schema.
 */
export const IMAGE_SIZE_PROPERTIES = {
  image_width: Type.Optional(
    Type.Integer({ minimum: 1, maximum: LARGEST_IMAGE_SIDE, description: 'Resize the image to this width in px after the capture (a thumbnail); alone, the height follows the aspect ratio.' }),
  ),
  image_height: Type.Optional(Type.Integer({ minimum: 1, maximum: LARGEST_IMAGE_SIDE, description: 'Resize the image to this height in px; alone, the width follows the aspect ratio.' })),
  image_fit: Type.Enum([...IMAGE_FITS], {
    default: 'cover',
    description:
      'With image_width and image_height: `cover` fills the box and crops the overflow (centred), `contain` fits inside it and pads (transparent; white for jpg), `inside` fits inside it without padding (the image may be smaller), `fill` stretches.',
  }),
};
