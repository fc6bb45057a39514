import { VARIATIONS, type Variation } from '../../../../shared/api'
import { COLOUR_NAMES } from '../../../../shared/colours'
import { VARIATION_LABEL } from '../../../../shared/vocabulary'
import type { PresetForm } from '../../lib/presetForm'

type Set = (patch: Partial<PresetForm>) => void

function Select<K extends keyof PresetForm>(props: {
  form: PresetForm
  set: Set
  k: K
  label: string
  options: ReadonlyArray<readonly [string, string]>
  error?: string
}): React.JSX.Element {
  return (
    <label className="field">
      <span>{props.label}</span>
      <select
        value={String(props.form[props.k])}
        aria-invalid={props.error ? true : undefined}
        data-testid={`param-${String(props.k)}`}
        onChange={(e) => props.set({ [props.k]: e.target.value } as Partial<PresetForm>)}
      >
        <option value="">Default</option>
        {props.options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
      {props.error && <span className="field-error">{props.error}</span>}
    </label>
  )
}

const VARIATION_OPTIONS = VARIATIONS.map((v) => [v, VARIATION_LABEL[v]] as const)

/** The colour picker's value for what is typed: a colour name's hex, a #RRGGBB as it is, else white. */
function swatch(text: string): string {
  const t = text.trim().toLowerCase()
  const hex = (Object.hasOwn(COLOUR_NAMES, t) ? COLOUR_NAMES[t]! : t).slice(0, 7).toLowerCase()
  return /^#[0-9a-f]{6}$/.test(hex) ? hex : '#ffffff'
}

/**
 * A preset's settings in a designer's words: background (a colour by name or value), shadow,
 * crop, size, margin, position, which versions of each photo are made and which one is the
 * main file, quality, edges, transparency and photo information. Every field may stay at its
 * default.
 */
export function PresetControls(props: {
  form: PresetForm
  set: Set
  errors: Record<string, string>
  readOnly: boolean
}): React.JSX.Element {
  const { form, set, errors } = props
  return (
    <fieldset className="form-grid unframed" disabled={props.readOnly}>
      <legend className="sr-only">Settings</legend>
      <Select
        form={form}
        set={set}
        k="background"
        label="Background"
        error={errors.background}
        options={[
          ['transparent', 'Transparent'],
          ['color', 'Colour'],
          ['blur', 'Blurred photo']
        ]}
      />
      {form.background === 'color' && (
        <label className="field">
          <span>Colour</span>
          <div className="row nowrap">
            <input
              type="color"
              value={swatch(form.color)}
              onChange={(e) => set({ color: e.target.value.toUpperCase() })}
              aria-label="Pick a colour"
            />
            <input
              type="text"
              className="grow mono"
              value={form.color}
              onChange={(e) => set({ color: e.target.value })}
              aria-label="Colour: a name (white, beige…) or #RRGGBB"
              list="colour-names"
              data-testid="param-color"
            />
            <datalist id="colour-names">
              {Object.keys(COLOUR_NAMES).map((n) => (
                <option key={n} value={n} />
              ))}
            </datalist>
          </div>
        </label>
      )}
      {form.background === 'blur' && (
        <label className="field">
          <span>Blur radius (px)</span>
          <input type="number" min={1} max={250} value={form.blur} placeholder="default" onChange={(e) => set({ blur: e.target.value })} />
        </label>
      )}
      <Select
        form={form}
        set={set}
        k="shadow"
        label="Shadow"
        error={errors.shadow}
        options={[
          ['none', 'None'],
          ['top', 'Contact shadow (lit from above)']
        ]}
      />
      <Select
        form={form}
        set={set}
        k="crop"
        label="Crop"
        error={errors.crop}
        options={[
          ['none', 'Keep the canvas'],
          ['subject', 'To the subject']
        ]}
      />
      <Select
        form={form}
        set={set}
        k="size"
        label="Size"
        error={errors.size}
        options={[
          ['original', 'Original'],
          ['box', 'Width × height'],
          ['long', 'Long edge']
        ]}
      />
      {form.size === 'box' && (
        <label className="field">
          <span>Width × height (px)</span>
          <div className="row nowrap">
            <input
              type="number"
              min={1}
              className="grow"
              value={form.width}
              onChange={(e) => set({ width: e.target.value })}
              aria-label="Width"
            />
            ×
            <input
              type="number"
              min={1}
              className="grow"
              value={form.height}
              onChange={(e) => set({ height: e.target.value })}
              aria-label="Height"
            />
          </div>
        </label>
      )}
      {form.size === 'long' && (
        <label className="field">
          <span>Long edge (px)</span>
          <input type="number" min={1} value={form.longEdge} onChange={(e) => set({ longEdge: e.target.value })} />
        </label>
      )}
      <label className="field">
        <span>Margin</span>
        <div className="row nowrap">
          <input
            type="text"
            inputMode="decimal"
            className="grow"
            value={form.margin}
            placeholder="5, or 4,6,8,6 for top, right, bottom, left"
            onChange={(e) => set({ margin: e.target.value })}
            aria-invalid={errors.margin ? true : undefined}
            aria-label="Margin"
            data-testid="param-margin"
          />
          <select value={form.marginUnit} onChange={(e) => set({ marginUnit: e.target.value as '%' | 'px' })} aria-label="Margin unit">
            <option value="%">%</option>
            <option value="px">px</option>
          </select>
        </div>
        {errors.margin && <span className="field-error">{errors.margin}</span>}
      </label>
      <Select
        form={form}
        set={set}
        k="position"
        label="Position"
        error={errors.position}
        options={[
          ['center', 'Centred'],
          ['bottom', 'On the bottom margin'],
          ['top', 'Against the top margin'],
          ['left', 'Against the left margin'],
          ['right', 'Against the right margin'],
          ['left,bottom', 'Bottom left'],
          ['right,bottom', 'Bottom right']
        ]}
      />
      <Select
        form={form}
        set={set}
        k="upscale"
        label="Small photos"
        error={errors.upscale}
        options={[
          ['allow', 'Enlarge to fill (warns beyond 2×)'],
          ['never', 'Keep their own size']
        ]}
      />
      <fieldset className="field unframed span-all">
        <legend className="muted variations-legend">Versions of each photo</legend>
        <div className="variation-choices">
          {VARIATION_OPTIONS.map(([v, text]) => (
            <label key={v} className="check small">
              <input
                type="checkbox"
                checked={form.variations.includes(v)}
                onChange={(e) =>
                  set({
                    variations: e.target.checked
                      ? VARIATIONS.filter((x) => x === v || form.variations.includes(x))
                      : form.variations.filter((x) => x !== v)
                  })
                }
                data-testid={`variation-${v}`}
              />
              <span>{text}</span>
            </label>
          ))}
        </div>
        {errors.variations && <span className="field-error">{errors.variations}</span>}
      </fieldset>
      <Select
        form={form}
        set={set}
        k="primary"
        label="Main file"
        error={errors.primary}
        options={VARIATION_OPTIONS.map(([v, text]): readonly [Variation, string] => [v, text])}
      />
      <label className="field">
        <span>Quality (JPEG, WebP)</span>
        <input
          type="number"
          min={1}
          max={100}
          value={form.quality}
          placeholder="default"
          onChange={(e) => set({ quality: e.target.value })}
          aria-invalid={errors.quality ? true : undefined}
        />
        {errors.quality && <span className="field-error">{errors.quality}</span>}
      </label>
      <Select
        form={form}
        set={set}
        k="refine"
        label="Edges"
        error={errors.refine}
        options={[
          ['edges', 'Refine edges'],
          ['detail', 'Refine edges, second look at every photo (look=always)'],
          ['none', 'As the model gives']
        ]}
      />
      <Select
        form={form}
        set={set}
        k="look"
        label="Second look"
        error={errors.look}
        options={[
          ['auto', 'Where the first is doubtful'],
          ['off', 'Never'],
          ['always', 'Every photo (costs more)']
        ]}
      />
      <Select
        form={form}
        set={set}
        k="alpha"
        label="Existing transparency"
        error={errors.alpha}
        options={[
          ['auto', 'Run the model'],
          ['keep', 'Keep the input alpha']
        ]}
      />
      <Select
        form={form}
        set={set}
        k="metadata"
        label="Photo information"
        error={errors.metadata}
        options={[
          ['keep', 'Keep (without location)'],
          ['keep-gps', 'Keep, with location'],
          ['strip', 'Remove']
        ]}
      />
    </fieldset>
  )
}
