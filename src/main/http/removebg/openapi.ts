/**
 * The remove.bg-compatible endpoints in the OpenAPI document (`http/openapi.ts`), beside
 * `/api/v1`: their fields, answers and remove.bg-shaped errors (docs/api.md "remove.bg compatibility").
 */
import { IMAGE_TYPES } from '../../../shared/image-types'
import { FORMATS, SHADOW_TYPES, SIZE_CAPS, TYPES } from './fields'

/** The image answers: one per `format` that is an image (`png`, `jpg`, `webp`), by its MIME type. */
const imageAnswers = Object.fromEntries(FORMATS.flatMap((f) => (IMAGE_TYPES[f] ? [[IMAGE_TYPES[f], {}]] : [])))

const removeBgError = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers && { headers }),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/RemoveBgErrors' } } }
})

const int = { schema: { type: 'integer' } }

const fields = {
  image_url: {
    type: 'string',
    format: 'uri',
    description: 'http(s) address of the photo, fetched under the same rules as file_url (docs/api.md 12)'
  },
  image_file_b64: { type: 'string', description: 'The photo, base64 (JSON or form-urlencoded bodies)' },
  size: {
    type: 'string',
    enum: Object.keys(SIZE_CAPS),
    default: 'preview',
    description:
      "Pixel cap of the answer: preview/small/regular 0.25 MP, medium 1.5 MP, hd 4 MP, full/4k 25 MP, 50MP 50 MP, auto the product's own limits"
  },
  type: {
    type: 'string',
    enum: TYPES,
    default: 'auto',
    description: 'Accepted and answered in X-Type; the model is the same for every type'
  },
  type_level: { type: 'string', enum: ['none', '1', '2', 'latest'], description: 'Accepted; no effect' },
  format: {
    type: 'string',
    enum: FORMATS,
    default: 'auto',
    description: 'auto: PNG when the result is transparent anywhere, else JPG; zip: color.jpg + alpha.png'
  },
  roi: { type: 'string', default: '0% 0% 100% 100%', description: '"x1 y1 x2 y2" in px or %: nothing outside is foreground' },
  crop: { type: 'boolean', default: false, description: 'Crop to the subject' },
  crop_margin: {
    type: 'string',
    description: 'With crop=true: one margin (px, at most 500, or % of the subject, at most 50); 2 or 4 values only when equal'
  },
  scale: {
    type: 'string',
    default: 'original',
    description: "10% to 100%: the subject's share of the canvas (the photo's size); implies position=center"
  },
  position: {
    type: 'string',
    default: 'original',
    description: 'original, or with scale: center ("50%", "50% 50%") or bottom ("50% 100%")'
  },
  channels: { type: 'string', enum: ['rgba', 'alpha'], default: 'rgba' },
  bg_color: { type: 'string', description: 'Hex (81d4fa, fff, 81d4fa77, with or without #) or a colour name' },
  bg_image_url: { type: 'string', format: 'uri', description: 'A background image laid under the subject (cover), fetched like image_url' },
  shadow_type: { type: 'string', enum: SHADOW_TYPES, description: "Any type but none adds the product's contact shadow" },
  add_shadow: { type: 'boolean', description: 'Older form of shadow_type' },
  shadow_opacity: { type: 'integer', minimum: 0, maximum: 100, description: 'Refused (unsupported_option): the shadow has one strength' },
  semitransparency: { type: 'boolean', default: true, description: 'false is refused (unsupported_option)' }
}

export const removeBgSchemas = {
  RemoveBgErrors: {
    type: 'object',
    required: ['errors'],
    properties: {
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['title', 'code'],
          properties: { title: { type: 'string' }, code: { type: 'string' }, detail: { type: 'string' } }
        }
      }
    }
  },
  RemoveBgResult: {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: ['result_b64', 'foreground_top', 'foreground_left', 'foreground_width', 'foreground_height'],
        properties: {
          result_b64: { type: 'string', contentEncoding: 'base64' },
          foreground_top: { type: 'integer' },
          foreground_left: { type: 'integer' },
          foreground_width: { type: 'integer' },
          foreground_height: { type: 'integer' }
        }
      }
    }
  },
  RemoveBgAccount: {
    type: 'object',
    properties: {
      data: {
        type: 'object',
        properties: {
          attributes: {
            type: 'object',
            properties: {
              credits: {
                type: 'object',
                description: "The key's balance as total and payg; null for an unlimited key",
                properties: {
                  total: { type: ['number', 'null'] },
                  subscription: { type: 'number' },
                  payg: { type: ['number', 'null'] },
                  enterprise: { type: 'number' }
                }
              },
              api: { type: 'object', properties: { free_calls: { type: 'integer' }, sizes: { type: 'string' } } }
            }
          }
        }
      }
    }
  }
}

const rateLimit = { 'X-RateLimit-Limit': int, 'X-RateLimit-Remaining': int, 'X-RateLimit-Reset': int }

/** The operations of `/v1.0`, by operationId, for their routes (removebg/route.ts). */
export const REMOVEBG_OPERATIONS = {
  removeBackground: {
    summary: 'Remove the background, synchronously, as remove.bg\'s API v1.0 (docs/api.md "remove.bg compatibility")',
    requestBody: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: {
              ...fields,
              image_file: { type: 'string', contentMediaType: 'application/octet-stream' },
              bg_image_file: { type: 'string', contentMediaType: 'application/octet-stream' }
            }
          }
        },
        'application/x-www-form-urlencoded': { schema: { type: 'object', properties: fields } },
        'application/json': { schema: { type: 'object', properties: fields } }
      }
    },
    responses: {
      '200': {
        description: 'The result: image bytes, or JSON with Accept: application/json',
        headers: {
          'X-Type': { schema: { type: 'string' } },
          'X-Width': int,
          'X-Height': int,
          'X-Credits-Charged': { schema: { type: 'number' } },
          'X-Foreground-Top': int,
          'X-Foreground-Left': int,
          'X-Foreground-Width': int,
          'X-Foreground-Height': int,
          ...rateLimit
        },
        content: {
          ...imageAnswers,
          'application/zip': {},
          'application/json': { schema: { $ref: '#/components/schemas/RemoveBgResult' } }
        }
      },
      '400': removeBgError(
        'Bad input: an invalid or unsupported field, no source or several, a file too large, an image of too many pixels, an address refused or not fetched, no foreground found'
      ),
      '402': removeBgError('Not enough credits (the cost of the same /api/v1 job)'),
      '403': removeBgError('Missing or invalid X-Api-Key (auth_failed), or Host not allowed'),
      '429': removeBgError("Too many bad keys, or the key's share of the queue is waiting", { 'Retry-After': int, ...rateLimit }),
      '500': removeBgError('The job failed'),
      '503': removeBgError('Busy or the model cannot load; see Retry-After'),
      '405': removeBgError('Another method than POST')
    }
  },
  getAccount: {
    summary: "The key's credits in remove.bg's shape",
    responses: {
      '200': {
        description: 'The account',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/RemoveBgAccount' } } }
      },
      '403': removeBgError('Missing or invalid X-Api-Key'),
      '405': removeBgError('Another method than GET')
    }
  }
}
