import { Engine } from './engine'
import type { EngineOptions } from './options'
import type { EnginePort, EngineSeams } from './ports'

/**
 * Makes an engine on a data folder (not started: `start()`), with the embedded scheduler or the
 * dispatcher of `seams`. The one place outside `engine.ts` that names the class: its makers
 * (composition, studio mode, the commands) hold it as `EnginePort` and hand each consumer the
 * port of `ports.ts` it takes.
 */
export function createEngine(options: EngineOptions, seams: EngineSeams = {}): EnginePort {
  return new Engine(options, seams)
}
