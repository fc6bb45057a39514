/**
 * The operations of `/api/v1` by operationId, each route of the table (api-routes.ts,
 * jobs-routes.ts) taking its own with `operation()`; remove.bg's are in `removebg/openapi.ts`.
 * The document around them (paths from the table, schemas) is `openapi.ts`.
 */
import { DELIVERY_MODES, JOBS_PAGE, MODES, OUTPUT_FORMATS } from '../../shared/api'
import { ACCEPTED_MIME_TYPES, IMAGE_TYPES } from '../../shared/image-types'
import { MAX_REGIONS, MAX_REGIONS_LENGTH, MIN_REGION_SIDE } from '../../shared/regions'
import { MAX_PARAMS_LENGTH } from '../../shared/upload'
import { HINT_TYPES } from '../engine/public'
import { REMOVEBG_OPERATIONS } from './removebg/openapi'
import type { Route } from './route-table'
export type Operation = { operationId?: string; responses: Record<string, unknown>; [field: string]: unknown }

const uploadFields = {
  file_url: { type: 'string', format: 'uri', description: 'http(s) address of the image; exclusive with file' },
  mode: {
    type: 'string',
    enum: MODES,
    description:
      'Not given: params when a parameter set is given, else clipping. With mode=clipping, a key of the set that cannot apply to it (a background other than transparent, shadow=top, a variation other than clipping or mask) is refused with 422 validation_failed naming the key (params.<key>) and the mode; mode=background takes every key.'
  },
  params: {
    description: `Parameter set: a preset name, key=value pairs, or an object. At most ${MAX_PARAMS_LENGTH} characters as a string. Required when mode=params; given without a mode, the job runs as mode=params. Never dropped: every key applies, or the upload is refused (422). A set asking for shadow=top and naming no primary has shadowTop as its primary.`,
    oneOf: [{ type: 'string', maxLength: MAX_PARAMS_LENGTH }, { type: 'object' }, { type: 'null' }]
  },
  delivery_mode: { type: 'string', enum: DELIVERY_MODES, default: 'url' },
  output_format: { type: 'string', enum: OUTPUT_FORMATS, default: 'png' }
}

export const err = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }
})

function cancelResponses(): Record<string, unknown> {
  return {
    '200': {
      description: 'Cancelled; its credits are refunded',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Cancelled' } } }
    },
    '401': err('Missing or invalid X-API-Key'),
    '404': err("No such job, or another key's (job_not_found)"),
    '409': err('The job already ended (conflict)'),
    '422': err('job_id missing or not a job id')
  }
}

/** The operation `id` of `/api/v1` or `/v1.0`, for its route's `doc`. */
export function operation(id: keyof typeof API_OPERATIONS | keyof typeof REMOVEBG_OPERATIONS): Route['doc'] & {} {
  const ops: Record<string, Operation> = { ...API_OPERATIONS, ...REMOVEBG_OPERATIONS }
  return { ...(ops[id] as Operation), operationId: id }
}

/** The operations of `/api/v1`, by operationId: each route of the table (api-routes.ts, jobs-routes.ts) takes its own. */
const API_OPERATIONS = {
  createJob: {
    summary: 'Create a job',
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: { type: 'object', properties: uploadFields } },
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: {
              ...uploadFields,
              file: { type: 'string', contentMediaType: 'application/octet-stream' },
              hint: {
                type: 'string',
                contentMediaType: 'application/octet-stream',
                description:
                  "Optional, only with file: a PNG, JPEG or WebP of the image's size after its EXIF orientation, read as grey: white (>= 224) = keep, black (<= 32) = remove, mid grey (97-159) = the model decides, the greys between a stroke's rim (alpha taken down or lifted in proportion; docs/api.md 6.4)"
              },
              regions: {
                type: 'string',
                maxLength: MAX_REGIONS_LENGTH,
                description: `Optional, only with file: look-again boxes, a JSON array of at most ${MAX_REGIONS} objects {"x", "y", "width", "height"} (integers, pixels of the image after its EXIF orientation; sides at least ${MIN_REGION_SIDE}), covering at most the image's area between them. The model runs again on each box's crop and its result replaces the job's inside the box; a box reaching past the image is clipped to it. Each box costs 1 credit on top of the outputs (docs/api.md 3 and 6.5)`,
                examples: ['[{"x":620,"y":56,"width":80,"height":80}]']
              }
            }
          },
          encoding: {
            file: { contentType: ACCEPTED_MIME_TYPES.join(', ') },
            hint: { contentType: HINT_TYPES.map((t) => IMAGE_TYPES[t]).join(', ') }
          }
        }
      }
    },
    responses: {
      '202': {
        description: 'Accepted',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/UploadAccepted' } } }
      },
      '400': err('Malformed body, wrong field type, or neither file nor file_url (missing_input)'),
      '401': err('Missing or invalid X-API-Key'),
      '402': err('Not enough credits for this job: 1 credit per started 100 MP of output, summed over its variations, at least 1'),
      '403': err('Host header not allowed'),
      '408': err('request_timeout: the body arrived slower than 8 KiB/s over a 10 s window'),
      '413': err('Upload (or its hint) larger than the limit, declared or as a chunked body arrives'),
      '422': err(
        'Validation failed (enums, both inputs, params, a key of params the explicit mode cannot apply, a model not in the registry, outputs over the limits: 100 MP a variation, 250 MP a job; file type, image too large; a hint not a PNG, JPEG or WebP of the image size, or with file_url; regions not a JSON array of at most 8 boxes, a box under 16 pixels on a side or outside the image, or with file_url)'
      ),
      '429': err('Too many bad API keys, or this key already has its share of the queue waiting (a quarter of it); see Retry-After'),
      '503': err(
        'Queue full, the model the job would use failed to load in the last minute, too many upload bytes being received at once, or this key already sending its share of them (one whole upload); see Retry-After'
      )
    }
  },
  getJobStatus: {
    summary: 'Read a job',
    parameters: [{ name: 'job_id', in: 'query', required: true, schema: { type: 'string', format: 'uuid' } }],
    responses: {
      '200': { description: 'The job', content: { 'application/json': { schema: { $ref: '#/components/schemas/JobStatus' } } } },
      '401': err('Missing or invalid X-API-Key'),
      '404': err('No such job'),
      '422': err('job_id missing or not a job id'),
      '500': {
        description: 'The job failed (error.code job_failed) or was cancelled (error.code cancelled); the body has the status fields too',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/JobStatus' } } }
      }
    }
  },
  getResult: {
    summary: 'Download a result (signed address from the status endpoint; no API key)',
    security: [],
    parameters: [
      { name: 'job_id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'file', in: 'path', required: true, schema: { type: 'string' }, description: '<variation>.<ext>' },
      { name: 'expires', in: 'query', required: true, schema: { type: 'integer' } },
      { name: 'sig', in: 'query', required: true, schema: { type: 'string' } }
    ],
    responses: {
      '200': { description: 'The image' },
      '403': err('Bad or expired signature'),
      '404': err('Result swept or not found')
    }
  },
  getHealth: {
    summary: 'Liveness, the default model and the device that runs it (no key needed)',
    security: [],
    responses: {
      '200': { description: 'Up', content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } } },
      '503': {
        description: 'Degraded: the engine cannot start its sandbox processes (`reason` says why)',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } }
      }
    }
  },
  getOpenApiDocument: { summary: 'This document', security: [], responses: { '200': { description: 'OpenAPI 3.1' } } },
  listJobs: {
    summary: "This key's own jobs, newest first, a page at a time",
    parameters: [
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: JOBS_PAGE.max, default: JOBS_PAGE.default } },
      { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'next_cursor of the previous page' }
    ],
    responses: {
      '200': { description: 'A page', content: { 'application/json': { schema: { $ref: '#/components/schemas/JobList' } } } },
      '401': err('Missing or invalid X-API-Key'),
      '422': err('limit or cursor not valid')
    }
  },
  cancelJob: {
    summary: "Cancel one of this key's jobs that has not ended (job_id in the query, or in a JSON or multipart body)",
    parameters: [{ name: 'job_id', in: 'query', schema: { type: 'string', format: 'uuid' } }],
    requestBody: {
      content: { 'application/json': { schema: { type: 'object', properties: { job_id: { type: 'string', format: 'uuid' } } } } }
    },
    responses: cancelResponses()
  },
  deleteJob: {
    summary: "Cancel one of this key's jobs that has not ended",
    parameters: [{ name: 'job_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
    responses: cancelResponses()
  }
}
