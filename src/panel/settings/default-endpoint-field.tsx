/**
 * The Settings Editor's "Default endpoint": a select of the endpoints the
 * settings define, built-in ones included, instead of a free-text name. It
 * follows the saved settings the form holds (`formContext.settings`), so an
 * endpoint added or renamed in the form is offered once it is saved.
 */
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { FieldProps } from '@rjsf/utils';
import React, { useEffect, useState } from 'react';
import { defaultEndpointChoices } from '../../contracts/settings-editor';

export function defaultEndpointField(
  trans: TranslationBundle
): (props: FieldProps) => JSX.Element {
  return function DefaultEndpointField(props: FieldProps): JSX.Element {
    const { formData, formContext, idSchema, schema, onChange, disabled } =
      props;
    const settings = formContext?.settings as
      ISettingRegistry.ISettings | undefined;
    // The form does not render a field again when other fields change, so
    // this one follows the saved settings itself.
    const [composite, setComposite] = useState(settings?.composite);
    useEffect(() => {
      if (!settings) {
        return;
      }
      const follow = () => setComposite(settings.composite);
      follow();
      settings.changed.connect(follow);
      return () => {
        settings.changed.disconnect(follow);
      };
    }, [settings]);
    const choices = defaultEndpointChoices(composite, formData, trans);
    const id = idSchema.$id;
    // The form's template leaves a custom field's label to the field, and
    // wraps it like any input: a real <label>, with JupyterLab's look.
    return (
      <>
        <h3 className="jp-FormGroup-fieldLabel">
          <label htmlFor={id}>{schema.title}</label>
        </h3>
        <div className="jp-inputFieldWrapper">
          <select
            id={id}
            className="form-control"
            value={typeof formData === 'string' ? formData : ''}
            disabled={disabled}
            onChange={event => onChange(event.target.value)}
          >
            {choices.map(choice => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </div>
      </>
    );
  };
}
