import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { startApp } from './store/connect'
import './styles/base.css'
import './styles/app.css'
import './styles/status.css'
import './styles/batches.css'
import './styles/presets.css'
import './styles/viewer.css'
import './styles/utilities.css'

void startApp()

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>
)
