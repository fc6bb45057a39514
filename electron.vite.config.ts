import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

// Main bundles four entries: the Electron shell, the plain-Node CLI (`clipdesk`), the decode
// sandbox process and the refine thread. They share the engine chunks; only the shell imports
// electron.
export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          cli: resolve('src/main/cli.ts'),
          // The decode sandbox: a separate process for untrusted images (engine/sandbox/pool.ts).
          'decode-child': resolve('src/main/engine/sandbox/child.ts'),
          // The refine step's thread, at a lower priority than the model's (engine/pipeline/refine/refine-thread.ts).
          'refine-thread': resolve('src/main/engine/pipeline/refine/refine-thread-entry.ts')
        }
      }
    }
  },
  preload: {
    build: {
      // Sandboxed preloads cannot load ES modules: emit CommonJS.
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' }
      }
    }
  },
  renderer: {
    root: resolve('src/renderer'),
    build: {
      // Minified: the page loads every chunk at start (electron-vite leaves the renderer unminified by default).
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } }
    },
    plugins: [react()]
  }
})
