import { DELIVERY_MODES, JOB_STATUSES, JOBS_PAGE, MODES, OUTPUT_FORMATS, VARIATIONS } from '../../shared/api'
import { ERROR_STATUS, FAILURE_REASONS } from '../../shared/errors'
import { ACCEPTED_MIME_TYPES, IMAGE_TYPES } from '../../shared/image-types'
import { DEVICES } from '../../shared/models'
import { LIKELY_WRONG, TO_CHECK, WORTH_A_LOOK } from '../../shared/review'
import { MAX_PARAMS_LENGTH } from '../../shared/upload'
import { SECOND_LOOK_REASONS } from '../../shared/params-types'
import { MAX_REGIONS, MAX_REGIONS_LENGTH, MIN_REGION_SIDE } from '../../shared/regions'
import { HINT_TYPES } from '../engine/pipeline/guide/hint'
import { REMOVEBG_OPERATIONS, removeBgSchemas } from './removebg/openapi'
import type { Route } from './route-table'

/** Devices that actually run a model (the setting may also be `auto`). */
const RUN_DEVICES = DEVICES.filter((d) => d !== 'auto')

const errorBody = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: { type: 'object', required: ['field', 'issue'], properties: { field: { type: 'string' }, issue: { type: 'string' } } }
        },
        job_id: { type: 'string' },
        reason: { type: 'string', enum: FAILURE_REASONS }
      }
    }
  }
}

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

const err = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } })

type Operation = { operationId?: string; responses: Record<string, unknown>; [field: string]: unknown }

/** `/api/v1/jobs/:job_id` as OpenAPI writes it: `/api/v1/jobs/{job_id}`. */
const openApiPath = (path: string): string =>
  path
    .split('/')
    .map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s))
    .join('/')

/**
 * The document's paths, from the public routes of the table: each takes its route's operation,
 * and the 405 every path answers for another method (with `Allow`), so that neither can be
 * forgotten on a route added later. A public route without its operation, or whose answer is
 * not the schema its operation names, cannot start the listener.
 */
export function openApiPaths(routes: readonly Route[]): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {}
  for (const route of routes) {
    if (route.audience !== 'public' || route.method === '*') continue
    if (!route.doc) throw new Error(`the public route ${route.method} ${route.path} has no OpenAPI operation`)
    const method = route.method.toLowerCase()
    const op: Operation = { ...route.doc, responses: { ...route.doc.responses } }
    if (route.answer && !JSON.stringify(op.responses).includes(`"#/components/schemas/${route.answer}"`)) {
      throw new Error(`the operation of ${route.method} ${route.path} does not answer its schema ${route.answer}`)
    }
    op.responses['405'] ??= err(`Another method than ${route.method} (the Allow header lists the one to use)`)
    const path = openApiPath(route.path)
    paths[path] = { ...paths[path], [method]: op }
  }
  return paths
}

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

/** The OpenAPI 3.1 document of `/api/v1`, served at `/api/v1/openapi.json`. */
export function openApiDocument(serverUrl: string, routes: readonly Route[]): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Clipdesk local API', version: '1.0.0', license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' } },
    servers: [{ url: serverUrl }],
    security: [{ ApiKey: [] }],
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: {
        Error: errorBody,
        ...removeBgSchemas,
        JobList: {
          type: 'object',
          required: ['jobs', 'next_cursor'],
          properties: {
            jobs: {
              type: 'array',
              items: {
                type: 'object',
                required: ['job_id', 'status', 'state', 'mode', 'progress', 'output_format', 'source', 'created_at', 'finished_at'],
                properties: {
                  job_id: { type: 'string', format: 'uuid' },
                  status: { type: 'string', enum: JOB_STATUSES },
                  state: { type: 'string', enum: ['pending', 'done', 'failed'] },
                  mode: { type: 'string', enum: MODES },
                  progress: { type: 'number' },
                  output_format: { type: 'string', enum: OUTPUT_FORMATS },
                  source: { type: 'string', description: 'The file name or URL given' },
                  created_at: { type: 'string', format: 'date-time' },
                  finished_at: { type: ['string', 'null'], format: 'date-time' }
                }
              }
            },
            next_cursor: { type: ['string', 'null'], description: 'Pass as cursor for the next (older) page; null on the last page' }
          }
        },
        Cancelled: {
          type: 'object',
          required: ['job_id', 'status', 'state'],
          properties: { job_id: { type: 'string', format: 'uuid' }, status: { const: 'cancelled' }, state: { const: 'failed' } }
        },
        UploadAccepted: {
          type: 'object',
          required: ['job_id', 'status', 'mode'],
          properties: { job_id: { type: 'string', format: 'uuid' }, status: { const: 'queued' }, mode: { type: 'string', enum: MODES } }
        },
        JobStatus: {
          type: 'object',
          required: ['job_id', 'status', 'state', 'mode', 'progress', 'final_url'],
          properties: {
            job_id: { type: 'string', format: 'uuid' },
            status: { type: 'string', enum: JOB_STATUSES },
            state: { type: 'string', enum: ['pending', 'done', 'failed'] },
            mode: { type: 'string', enum: MODES },
            progress: { type: 'number', minimum: 0, maximum: 100 },
            final_url: { type: ['string', 'null'] },
            final_urls: { type: 'object', propertyNames: { enum: VARIATIONS }, additionalProperties: { type: 'string' } },
            warnings: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
            ignored_variations: { type: 'array', items: { type: 'string', enum: VARIATIONS } },
            model: { type: 'string', description: 'The registry model that made the mask, once the model step ran' },
            device: { type: 'string', enum: RUN_DEVICES, description: 'The device that ran the model, after any fallback to the CPU' },
            uncertainty: {
              type: 'number',
              minimum: 0,
              maximum: 1,
              description: `Done jobs: how much the cutout needs a person's look, 0 (sure) to 1 (check this), 3 decimals; "to check" from ${TO_CHECK} (docs/review.md)`
            },
            review: {
              type: 'object',
              required: ['level', 'score'],
              additionalProperties: false,
              description: `With uncertainty: the review level a designer acts on — likely_wrong from ${LIKELY_WRONG}, worth_a_look from ${WORTH_A_LOOK}, null below — and the score (docs/review.md)`,
              properties: {
                level: { type: ['string', 'null'], enum: ['likely_wrong', 'worth_a_look', null] },
                score: { type: 'number', minimum: 0, maximum: 1 }
              }
            },
            checks: {
              type: 'array',
              description:
                "Done jobs made with a store preset (amazon, ebay, etsy, shopify, google): the main file held against that store's rules (docs/store-ready.md)",
              items: {
                type: 'object',
                required: ['store', 'title', 'passed', 'failures'],
                additionalProperties: false,
                properties: {
                  store: { type: 'string', description: 'The rule set, e.g. amazon' },
                  title: { type: 'string', description: 'The store in words: "Ready for <title>"' },
                  passed: { type: 'boolean' },
                  failures: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['rule', 'reason', 'fix'],
                      additionalProperties: false,
                      properties: {
                        rule: {
                          type: 'string',
                          description:
                            'background, fill, wholeSubject, size, formats, colourSpace, noAlpha, fileSize, enlargement or readable'
                        },
                        reason: { type: 'string', description: 'In plain words' },
                        fix: { type: ['string', 'null'], description: 'What to do, when Clipdesk has a fix' }
                      }
                    }
                  }
                }
              }
            },
            second_look: {
              type: 'object',
              required: ['views', 'reason'],
              additionalProperties: false,
              description:
                'Done jobs whose photo got a second look (docs/pipeline.md "Second look"): the views the model saw beyond the first (one run each), and why — uncertain, small or empty first mask, or asked (look=always)',
              properties: {
                views: { type: 'integer', minimum: 1 },
                reason: { type: 'string', enum: [...SECOND_LOOK_REASONS] }
              }
            },
            error: errorBody.properties.error
          }
        },
        Health: {
          type: 'object',
          required: ['status', 'reason', 'model', 'device_setting', 'device', 'device_warning', 'queued', 'session', 'connections'],
          properties: {
            status: {
              type: 'string',
              enum: ['ok', 'degraded'],
              description: '`degraded` (answered with 503) while the engine cannot start its sandbox processes'
            },
            reason: { type: ['string', 'null'], description: 'Why the status is `degraded`; null when `ok`' },
            connections: {
              type: 'object',
              description: "The listener's connection caps and counts (docs/robustness.md, Connection floods)",
              required: ['open', 'idle', 'max', 'max_idle', 'refused', 'evicted', 'file_limit'],
              properties: {
                open: { type: 'integer', minimum: 0 },
                idle: { type: 'integer', minimum: 0, description: 'Open connections that have not sent a whole request head yet' },
                max: { type: 'integer', minimum: 1 },
                max_idle: { type: 'integer', minimum: 1 },
                refused: { type: 'integer', minimum: 0, description: 'Connections closed at once because `max` were open' },
                evicted: { type: 'integer', minimum: 0, description: 'Idle connections closed to make room for a newer one' },
                file_limit: { type: ['integer', 'null'], description: "The process's soft file limit the caps derive from" }
              }
            },
            model: { type: 'string', description: 'The default model' },
            device_setting: { type: 'string', enum: DEVICES, description: 'The device setting' },
            device: {
              type: ['string', 'null'],
              enum: [...RUN_DEVICES, null],
              description: 'The device that runs the default model; null until it is loaded'
            },
            device_warning: { type: ['string', 'null'], description: 'Why the chosen execution provider fell back to the CPU' },
            queued: { type: 'integer', minimum: 0, description: 'Jobs waiting' },
            session: {
              description:
                "How the default model's session was set up on this machine (docs/pipeline.md, Session settings); null until it is loaded",
              oneOf: [
                { type: 'null' },
                {
                  type: 'object',
                  required: ['backend', 'threads', 'chosen_by', 'run_ms', 'measured_at', 'arena', 'optimized_model', 'cpu'],
                  properties: {
                    backend: { type: 'string', enum: ['native', 'wasm'] },
                    threads: { type: 'integer', minimum: 1 },
                    chosen_by: { type: 'string', enum: ['measured', 'only-choice', 'setting'] },
                    run_ms: {
                      type: ['object', 'null'],
                      additionalProperties: { type: 'number' },
                      description: 'Milliseconds per run of each thread count measured'
                    },
                    measured_at: { type: ['string', 'null'], format: 'date-time' },
                    arena: { type: 'boolean' },
                    optimized_model: { type: 'string', enum: ['cached', 'made', 'none'] },
                    cpu: {
                      type: 'object',
                      required: ['model', 'logical', 'physical', 'simd'],
                      properties: {
                        model: { type: 'string' },
                        logical: { type: 'integer' },
                        physical: { type: ['integer', 'null'] },
                        simd: { type: 'array', items: { type: 'string' } }
                      }
                    }
                  }
                }
              ]
            }
          }
        }
      }
    },
    paths: openApiPaths(routes)
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
