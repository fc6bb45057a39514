import { JOB_STATUSES, MODES, OUTPUT_FORMATS, VARIATIONS } from '../../shared/api'
import { ERROR_STATUS, FAILURE_REASONS } from '../../shared/errors'
import { DEVICES } from '../../shared/models'
import { LIKELY_WRONG, TO_CHECK, WORTH_A_LOOK } from '../../shared/review'
import { SECOND_LOOK_REASONS } from '../../shared/params-types'
import { removeBgSchemas } from './removebg/openapi'
import type { Route } from './route-table'
import { err, type Operation } from './openapi-operations'

export { operation } from './openapi-operations'

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
